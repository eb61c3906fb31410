import { z } from "zod";
import { int32, queryInt32, text } from "./bounds";
import { SEGMENT_TYPES, type SegmentType } from "./enums";
import { type ErrorCode, SegmentErrors } from "./errors";
import { REQUIRED_FIELD } from "./users";

/** Segments of SPEC §3/§5: bodies, the sequence arithmetic and the peptide sequence rules. */

export const SEGMENT_MESSAGES = {
  OCCURRENCE_MIN: "Occurrence must be 1 or greater",
  RATIO_MIN: "Ratio must be 1 or greater",
  MULTIPLIER_MIN: "The multiplier must be greater than 0",
  SEQUENCE_REQUIRED: "Sequence is required",
  ONE_LETTER_FORMAT: "One-letter sequence must contain only capital letters (A-Z)",
  THREE_LETTER_FORMAT: "Three-letter sequence must contain 3-letter codes separated by hyphens (e.g., Gly-Ala-Glu)",
  THREE_LETTER_CASING:
    "All three-letter codes must use consistent format: all uppercase (e.g., GLY-ALA), all lowercase (e.g., gly-ala), or first letter uppercase (e.g., Gly-Ala)",
  AMINOACIDS_NOT_LOADED: "Sequence could not be validated. Please try again or contact support.",
  BLOCKS_DO_NOT_MATCH_SEQUENCE: "The building blocks do not match the sequence",
} as const;

export function invalidCodesMessage(codes: string[], naming: PeptideNaming): string {
  const kind = naming === "oneLetter" ? "one-letter" : "three-letter";
  return `Invalid aminoacid code(s): ${codes.join(", ")}. Please use only valid ${kind} codes.`;
}

/** Segment types a user can create now: the dendrimer ones are disabled (SPEC §2, later reading). */
export const CREATABLE_SEGMENT_TYPES = ["linear_block", "linear_random", "linear_peptide"] as const;
export type CreatableSegmentType = (typeof CREATABLE_SEGMENT_TYPES)[number];

export const PEPTIDE_NAMINGS = ["threeLetter", "oneLetter"] as const;
export type PeptideNaming = (typeof PEPTIDE_NAMINGS)[number];
export const PEPTIDE_CAPPING_TYPE = "synthetic";

export const DEFAULT_RATIO = 1;
export const DEFAULT_OCCURRENCE = 1;
export const DEFAULT_MULTIPLIER = 1;

// ---------------------------------------------------------------------------------------------
// Sequence arithmetic (SPEC §5)

/** Ratios and the multiplier are read as whole numbers; anything unparseable counts as 0. */
export function parseWholeNumber(value: string | number | null | undefined): number {
  if (typeof value === "number") return Number.isFinite(value) ? Math.trunc(value) : 0;
  const parsed = Number.parseInt(value ?? "", 10);
  return Number.isNaN(parsed) ? 0 : parsed;
}

/** Linear block segment: the sum of the occurrences. */
export function linearBlockTotal(occurrences: ReadonlyArray<string | number>): number {
  return occurrences.reduce<number>((sum, o) => sum + parseWholeNumber(o), 0);
}

/** Linear random segment: the sum of the ratios times the multiplier. */
export function linearRandomTotal(ratios: ReadonlyArray<string | number>, multiplier: string | number): number {
  return linearBlockTotal(ratios) * parseWholeNumber(multiplier);
}

/** Each ratio's share of the sum, as a percentage with 2 decimals ("0.00" when the sum is 0). */
export function ratioPercentages(ratios: ReadonlyArray<string | number>): string[] {
  const sum = linearBlockTotal(ratios);
  return ratios.map((r) => (sum > 0 ? ((parseWholeNumber(r) / sum) * 100).toFixed(2) : (0).toFixed(2)));
}

// ---------------------------------------------------------------------------------------------
// Peptide sequences (SPEC §5, linear peptide segment)

export interface AminoacidCodes {
  id: string;
  one_letter_code: string;
  three_letter_code: string;
}

export type PeptideSequenceCheck = { ok: true; residues: AminoacidCodes[] } | { ok: false; message: string };

const THREE_LETTER_SEQUENCE = /^[A-Za-z]{3}(-[A-Za-z]{3})*$/;
const THREE_LETTER_CASINGS = [/^[A-Z]{3}$/, /^[a-z]{3}$/, /^[A-Z][a-z]{2}$/];

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

/**
 * Checks a peptide sequence against the known aminoacid blocks and, when it is valid, returns the
 * aminoacids in sequence order. `aminoacids` undefined means the list could not be loaded.
 */
export function checkPeptideSequence(
  sequence: string,
  naming: PeptideNaming,
  aminoacids: ReadonlyArray<AminoacidCodes> | undefined,
): PeptideSequenceCheck {
  const text = sequence.trim();
  if (!text) return { ok: false, message: SEGMENT_MESSAGES.SEQUENCE_REQUIRED };
  if (!aminoacids) return { ok: false, message: SEGMENT_MESSAGES.AMINOACIDS_NOT_LOADED };

  if (naming === "oneLetter") {
    if (!/^[A-Z]+$/.test(text)) return { ok: false, message: SEGMENT_MESSAGES.ONE_LETTER_FORMAT };
    const byCode = new Map(aminoacids.map((a) => [a.one_letter_code, a]));
    const letters = [...text];
    const unknown = unique(letters.filter((l) => !byCode.has(l)));
    if (unknown.length) return { ok: false, message: invalidCodesMessage(unknown, naming) };
    return { ok: true, residues: letters.map((l) => byCode.get(l)!) };
  }

  if (!THREE_LETTER_SEQUENCE.test(text)) return { ok: false, message: SEGMENT_MESSAGES.THREE_LETTER_FORMAT };
  const codes = text.split("-");
  const casing = THREE_LETTER_CASINGS.find((pattern) => pattern.test(codes[0]!));
  if (!casing || !codes.every((c) => casing.test(c))) {
    return { ok: false, message: SEGMENT_MESSAGES.THREE_LETTER_CASING };
  }
  const byCode = new Map(aminoacids.map((a) => [a.three_letter_code.toUpperCase(), a]));
  const unknown = unique(codes.filter((c) => !byCode.has(c.toUpperCase())));
  if (unknown.length) return { ok: false, message: invalidCodesMessage(unknown, naming) };
  return { ok: true, residues: codes.map((c) => byCode.get(c.toUpperCase())!) };
}

// ---------------------------------------------------------------------------------------------
// API bodies (/v2/segments)

export const segmentBlockInput = z.object({
  building_block_id: z.guid(),
  order: int32().min(1),
  // Range rules answer the spec's segment codes (segmentBodyProblem), so only the shape is checked here.
  occurrence: int32().optional(),
  ratio: int32().optional(),
});
export type SegmentBlockInput = z.infer<typeof segmentBlockInput>;

export const segmentDataInput = z.object({
  total_building_blocks: int32(),
  /** Linear random only: total_building_blocks = sum of ratios × multiplier. */
  multiplier: int32().optional(),
  /** Linear peptide only. */
  capping_type: z.literal(PEPTIDE_CAPPING_TYPE).optional(),
  sequence: text().trim().max(5000).optional(),
  sequence_naming: z.enum(PEPTIDE_NAMINGS).optional(),
});

const blocksWithUniqueOrder = z
  .array(segmentBlockInput)
  .min(1)
  .max(1000)
  .refine((blocks) => new Set(blocks.map((b) => b.order)).size === blocks.length, {
    message: "Block order must be unique",
  });

export const segmentCreateBody = z.object({
  name: text().trim().min(1, REQUIRED_FIELD).max(255),
  // A free string so that an unknown type answers SEGMENT.VALIDATE.INVALID_TYPE (segmentBodyProblem);
  // the OpenAPI document names the types.
  type: text().meta({ enum: [...CREATABLE_SEGMENT_TYPES] }),
  data: segmentDataInput,
  blocks: blocksWithUniqueOrder,
});
export type SegmentCreateBody = z.infer<typeof segmentCreateBody>;

export const segmentPatchBody = segmentCreateBody.partial();
export type SegmentPatchBody = z.infer<typeof segmentPatchBody>;

export const segmentListQuery = z.object({
  page_num: queryInt32().min(1).default(1),
  page_size: queryInt32().min(1).max(100).default(10),
  name: text().trim().max(255).optional(),
  type: z
    .preprocess((v) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]), z.array(z.enum(SEGMENT_TYPES)))
    .optional(),
});

/** A broken rule with the error code and args the server answers (SPEC §8). */
export interface RuleProblem {
  code: ErrorCode;
  args?: Record<string, unknown>;
}

/** The total a segment's blocks give (linear peptide: one residue per block occurrence). */
export function expectedTotalBuildingBlocks(
  type: CreatableSegmentType,
  blocks: ReadonlyArray<SegmentBlockInput>,
  multiplier: number | undefined,
): number {
  if (type === "linear_random") {
    return linearRandomTotal(
      blocks.map((b) => b.ratio ?? 0),
      multiplier ?? DEFAULT_MULTIPLIER,
    );
  }
  return linearBlockTotal(blocks.map((b) => b.occurrence ?? 0));
}

/**
 * The first segment rule of SPEC §5/§8 a body breaks, with its code, or null. Shape errors
 * (missing fields, wrong JSON types) are the schema's job; this checks the rules with codes.
 */
export function segmentBodyProblem(body: SegmentCreateBody): RuleProblem | null {
  const type = body.type as SegmentType;
  if (!(CREATABLE_SEGMENT_TYPES as readonly string[]).includes(type)) {
    return { code: SegmentErrors.VALIDATE_INVALID_TYPE, args: { type: body.type } };
  }
  const creatable = type as CreatableSegmentType;
  for (const block of body.blocks) {
    const args = { building_block_id: block.building_block_id };
    const value = creatable === "linear_random" ? block.ratio : block.occurrence;
    if (value === undefined) {
      if (creatable === "linear_block") return { code: SegmentErrors.VALIDATE_LINEAR_BLOCK_OCCURRENCE_REQUIRED, args };
      if (creatable === "linear_random") return { code: SegmentErrors.VALIDATE_RANDOM_BLOCK_RATIO_REQUIRED, args };
      return { code: SegmentErrors.VALIDATE_MISSING_OCCURRENCE_OR_RATIO, args };
    }
    if (value < 1) return { code: SegmentErrors.VALIDATE_INVALID_BLOCK_OCCURRENCE_OR_RATIO, args };
  }
  const multiplier = body.data.multiplier;
  if (creatable === "linear_random" && multiplier !== undefined && multiplier <= 0) {
    return { code: SegmentErrors.VALIDATE_INVALID_BLOCK_OCCURRENCE_OR_RATIO, args: { multiplier } };
  }
  const expected = expectedTotalBuildingBlocks(creatable, body.blocks, multiplier);
  const actual = body.data.total_building_blocks;
  // A random segment sent without its multiplier must still be a whole multiple of the ratios.
  const randomWithoutMultiplier = creatable === "linear_random" && multiplier === undefined;
  const matches = randomWithoutMultiplier ? actual > 0 && actual % expected === 0 : actual === expected;
  if (!matches) {
    return { code: SegmentErrors.VALIDATE_TOTAL_BUILDING_BLOCKS_MISMATCH, args: { expected, actual } };
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Responses

export const segmentBlockResponse = z.object({
  building_block_id: z.string(),
  order: z.int(),
  occurrence: z.int().nullable(),
  ratio: z.int().nullable(),
  building_block: z.object({ id: z.string(), name: z.string(), type: z.string() }),
});

export const segmentResponse = z.object({
  id: z.string(),
  name: z.string(),
  type: z.enum(SEGMENT_TYPES),
  data: z.record(z.string(), z.unknown()),
  blocks: z.array(segmentBlockResponse),
  created_at: z.string(),
  updated_at: z.string(),
});
export type SegmentResponse = z.infer<typeof segmentResponse>;

// ---------------------------------------------------------------------------------------------
// Web form values (strings while typing) and their validation with the spec's messages

/** A whole number ≥ 1 typed as text: 'Required field' when empty, `minMessage` below 1. */
export function atLeastOneText(minMessage: string) {
  return z
    .string()
    .trim()
    .min(1, REQUIRED_FIELD)
    .refine((v) => parseWholeNumber(v) >= 1, minMessage);
}

export const linearBlockSegmentForm = z.object({
  name: z.string().trim().min(1, REQUIRED_FIELD),
  blocks: z
    .array(z.object({ building_block_id: z.string(), occurrence: atLeastOneText(SEGMENT_MESSAGES.OCCURRENCE_MIN) }))
    .min(1),
});

export const linearRandomSegmentForm = z.object({
  name: z.string().trim().min(1, REQUIRED_FIELD),
  multiplier: z
    .string()
    .trim()
    .min(1, REQUIRED_FIELD)
    .refine((v) => parseWholeNumber(v) > 0, SEGMENT_MESSAGES.MULTIPLIER_MIN),
  blocks: z
    .array(z.object({ building_block_id: z.string(), ratio: atLeastOneText(SEGMENT_MESSAGES.RATIO_MIN) }))
    .min(1),
});

export const linearPeptideSegmentForm = z.object({
  name: z.string().trim().min(1, REQUIRED_FIELD),
  sequence_naming: z.enum(PEPTIDE_NAMINGS, { error: REQUIRED_FIELD }),
  sequence: z.string().trim().min(1, SEGMENT_MESSAGES.SEQUENCE_REQUIRED),
});
