import { z } from "zod";
import { int32, queryInt32, text } from "./bounds";
import { type ForceField, TACTICITIES, type Tacticity } from "./enums";
import { type ErrorCode, PolymerErrors } from "./errors";
import { normalizeOrganization, type Organization } from "./organizations";
import { atLeastOneText, type RuleProblem, SEGMENT_MESSAGES } from "./segments";
import { REQUIRED_FIELD } from "./users";

/** Polymers of SPEC §3/§5: force fields by organization, bodies and their coded rules. */

export interface ForceFieldOption {
  value: ForceField;
  label: string;
}

const GAFF: ForceFieldOption = { value: "gaff", label: "gaff" };
const GAFF2: ForceFieldOption = { value: "gaff2", label: "gaff2" };
const GLYCAM: ForceFieldOption = { value: "glycam_06j", label: "glycam06j" };
const EXTENDED_GLYCAM: ForceFieldOption = { value: "extended_glycam_06j", label: "extended glycam06j" };

/** SPEC §5 (linear polymer): the cosmetics company gets gaff2 and both glycam fields; the product's
 * own company and Other get gaff, gaff2 and glycam06j. */
const FORCE_FIELDS_BY_ORGANIZATION: Record<Organization, ForceFieldOption[]> = {
  cosmetics: [GAFF2, GLYCAM, EXTENDED_GLYCAM],
  polyforge: [GAFF, GAFF2, GLYCAM],
  other: [GAFF, GAFF2, GLYCAM],
};

/** The force fields a user of this organization may pick (an invalid one counts as Other). */
export function polymerForceFieldOptions(organization: unknown): ForceFieldOption[] {
  return FORCE_FIELDS_BY_ORGANIZATION[normalizeOrganization(organization)];
}

/** Both spellings of SPEC §3 name the same force field; the stored value is the enum's. */
const FORCE_FIELD_SPELLINGS: Record<string, ForceField> = {
  gaff: "gaff",
  gaff2: "gaff2",
  glycam_06j: "glycam_06j",
  glycam06j: "glycam_06j",
  extended_glycam_06j: "extended_glycam_06j",
  "extended glycam06j": "extended_glycam_06j",
};

export function normalizePolymerForceField(value: string): ForceField | null {
  return FORCE_FIELD_SPELLINGS[value.trim().toLowerCase()] ?? null;
}

const FORCE_FIELD_LABELS: Record<ForceField, string> = Object.fromEntries(
  [GAFF, GAFF2, GLYCAM, EXTENDED_GLYCAM].map((option) => [option.value, option.label]),
) as Record<ForceField, string>;

/** A polymer's force field as the user reads it, whichever spelling is stored: the select's label
 * (SPEC §5: 'glycam06j', 'extended glycam06j'), so the list, the review and the summary agree. */
export function polymerForceFieldLabel(value: string): string {
  const forceField = normalizePolymerForceField(value);
  return forceField ? FORCE_FIELD_LABELS[forceField] : value;
}

export const polymerSegmentInput = z.object({
  segment_id: z.guid(),
  // Range rules answer the spec's polymer codes (polymerBodyProblem).
  occurrence: int32(),
  order: int32(),
});

/** Tacticity of a polymer (issue 22, per polymer): the meso fraction is the chance that two
 * consecutive prochiral backbone centres have the same configuration (atactic only, Bernoullian). */
export const DEFAULT_MESO_FRACTION = 0.5;
export const MESO_FRACTION_MESSAGE = "Meso fraction must be between 0 and 1";
export const DEFAULT_TACTICITY: { kind: Tacticity; meso_fraction: number } = {
  kind: "atactic",
  meso_fraction: DEFAULT_MESO_FRACTION,
};
export const polymerTacticityInput = z.object({
  kind: z.enum(TACTICITIES),
  /** Kept when another kind is chosen, so switching back to atactic finds it again. */
  meso_fraction: z.number().min(0, MESO_FRACTION_MESSAGE).max(1, MESO_FRACTION_MESSAGE).optional(),
});
export type PolymerTacticityInput = z.infer<typeof polymerTacticityInput>;

export const polymerCreateBody = z.object({
  name: text().trim().min(1, REQUIRED_FIELD).max(255),
  // Either spelling of SPEC §3; which ones a user may pick depends on the organization.
  force_field: text()
    .trim()
    .min(1, REQUIRED_FIELD)
    .meta({ enum: Object.keys(FORCE_FIELD_SPELLINGS) }),
  segments: z.array(polymerSegmentInput).min(1).max(1000),
  /** Absent: atactic with meso fraction 0.5 (DEFAULT_TACTICITY). */
  tacticity: polymerTacticityInput.optional(),
});
export type PolymerCreateBody = z.infer<typeof polymerCreateBody>;

export const polymerPatchBody = polymerCreateBody.partial();
export type PolymerPatchBody = z.infer<typeof polymerPatchBody>;

export const polymerListQuery = z.object({
  page_num: queryInt32().min(1).default(1),
  page_size: queryInt32().min(1).max(100).default(10),
  name: text().trim().max(255).optional(),
});

/** Order positive and unique, occurrence ≥ 1 — shared by polymer segments and setup polymers. */
export function orderedItemsProblem(
  items: ReadonlyArray<{ order: number; occurrence: number }>,
  codes: { orderPositive: ErrorCode; orderDuplicate: ErrorCode; occurrence: ErrorCode },
): RuleProblem | null {
  const seen = new Set<number>();
  for (const item of items) {
    if (item.order < 1) return { code: codes.orderPositive, args: { order: item.order } };
    if (seen.has(item.order)) return { code: codes.orderDuplicate, args: { order: item.order } };
    seen.add(item.order);
    if (item.occurrence < 1) return { code: codes.occurrence, args: { occurrence: item.occurrence } };
  }
  return null;
}

/** The first polymer rule of SPEC §5/§8 a body breaks, or null. */
export function polymerBodyProblem(body: PolymerCreateBody, organization: unknown): RuleProblem | null {
  const forceField = normalizePolymerForceField(body.force_field);
  const allowed = polymerForceFieldOptions(organization).map((o) => o.value);
  if (!forceField || !allowed.includes(forceField)) {
    return { code: PolymerErrors.VALIDATE_FORCE_FIELD, args: { force_field: body.force_field } };
  }
  return orderedItemsProblem(body.segments, {
    orderPositive: PolymerErrors.VALIDATE_SEGMENT_ORDER_POSITIVE,
    orderDuplicate: PolymerErrors.VALIDATE_SEGMENT_ORDER_DUPLICATE,
    occurrence: PolymerErrors.VALIDATE_SEGMENT_OCCURRENCE_POSITIVE,
  });
}

export const polymerResponse = z.object({
  id: z.string(),
  name: z.string(),
  force_field: z.string(),
  segments: z.array(
    z.object({
      segment_id: z.string(),
      occurrence: z.int(),
      order: z.int(),
      segment: z.object({ id: z.string(), name: z.string(), type: z.string() }),
    }),
  ),
  tacticity: z.object({ kind: z.enum(TACTICITIES), meso_fraction: z.number() }),
  created_at: z.string(),
  updated_at: z.string(),
});
export type PolymerResponse = z.infer<typeof polymerResponse>;

/** The linear polymer form while typing (occurrences and the meso fraction are text). */
export const linearPolymerForm = z
  .object({
    name: z.string().trim().min(1, REQUIRED_FIELD),
    force_field: z.string().min(1, REQUIRED_FIELD),
    segments: z
      .array(z.object({ segment_id: z.string(), occurrence: atLeastOneText(SEGMENT_MESSAGES.OCCURRENCE_MIN) }))
      .min(1),
    tacticity: z.enum(TACTICITIES),
    meso_fraction: z.string(),
  })
  .superRefine((form, ctx) => {
    if (form.tacticity !== "atactic") return;
    const text = form.meso_fraction.trim();
    const value = Number(text);
    if (!text) ctx.addIssue({ code: "custom", path: ["meso_fraction"], message: REQUIRED_FIELD });
    else if (!(Number.isFinite(value) && value >= 0 && value <= 1)) {
      ctx.addIssue({ code: "custom", path: ["meso_fraction"], message: MESO_FRACTION_MESSAGE });
    }
  });
