import { z } from "zod";
import { text } from "./bounds";
import { SYSTEM_ORIGINS, SYSTEM_TYPES, type SystemType } from "./enums";
import { REQUIRED_FIELD } from "./users";

/** Systems (SPEC §3): the draft calls of /v2/systems and the rules shared with the engine. */

export const systemNameSchema = text().trim().min(1, REQUIRED_FIELD).max(255);

/** PATCH /v2/systems/{id}/draft: name the draft and finish it. */
export const finishDraftBody = z.object({ name: systemNameSchema, is_draft: z.literal(false) });
export type FinishDraftBody = z.infer<typeof finishDraftBody>;

/** The Create step's form (SPEC §5: name at least 1 character). */
export const createSystemForm = z.object({ name: systemNameSchema });

/** A file-system-safe name: lower case, runs of anything but letters and digits become `_`. */
export function sanitizeSystemName(name: string): string {
  const sanitized = name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  return sanitized || "system";
}

/**
 * ARCHITECTURE §5: one molecule in total → molecule; several copies of one kind → system; more
 * than one kind → mixed; nothing yet → not_defined. `occurrences` has one entry per polymer kind.
 */
export function systemTypeFor(occurrences: ReadonlyArray<number>): SystemType {
  const kinds = occurrences.filter((o) => o > 0);
  if (kinds.length === 0) return "not_defined";
  if (kinds.length > 1) return "mixed";
  return kinds[0] === 1 ? "molecule" : "system";
}

export const systemResponse = z.object({
  id: z.string(),
  name: z.string(),
  sanitized_name: z.string(),
  description: z.string(),
  origin: z.enum(SYSTEM_ORIGINS),
  type: z.enum(SYSTEM_TYPES),
  is_draft: z.boolean(),
  system_data: z.record(z.string(), z.unknown()),
  created_at: z.string(),
  updated_at: z.string(),
});
export type SystemResponse = z.infer<typeof systemResponse>;
