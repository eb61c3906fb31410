import { z } from "zod";
import { queryInt32, text } from "./bounds";
import { BLOCK_TYPES, type CREATABLE_BLOCK_TYPES } from "./enums";
import { listResponse, paginationQuery, queryBoolean, repeatedQuery } from "./pagination";
import {
  CONNECTION_RULES,
  type ConnectionRule,
  checkConnectionSmiles,
  type SmilesIssue,
} from "./smiles/connection-rules";
import type { RDKitModule } from "./smiles/rdkit";
import { REQUIRED_FIELD } from "./users";

/** Building blocks (SPEC §3, §5, §7 /v2/building_blocks). */

export const BLOCK_NAME_MAX_LENGTH = 255;

/** Default caps of SPEC §5: a head cap closes with [*:2], tail and capping central units with [*:1]. */
export const DEFAULT_HEAD_REPEATING_UNIT = "[*:2][H]";
export const DEFAULT_TAIL_REPEATING_UNIT = "[*:1][H]";
export const DEFAULT_CAPPING_CENTRAL_UNIT = "[*:1][H]";

/** Every SMILES field of each creatable block type, in form order, with its connection rule. */
export const SMILES_FIELD_RULES = {
  linear: {
    repeating_unit: CONNECTION_RULES.linearRepeatingUnit,
    head_repeating_unit: CONNECTION_RULES.headUnit,
    tail_repeating_unit: CONNECTION_RULES.capUnit,
  },
  dendrimer: {
    central_unit: CONNECTION_RULES.dendrimerCentralUnit,
    repeating_unit: CONNECTION_RULES.dendrimerRepeatingUnit,
    capping_central_unit: CONNECTION_RULES.capUnit,
    head_repeating_unit: CONNECTION_RULES.headUnit,
    tail_repeating_unit: CONNECTION_RULES.capUnit,
  },
} as const satisfies Record<CreatableBlockType, Record<string, ConnectionRule>>;

export type CreatableBlockType = (typeof CREATABLE_BLOCK_TYPES)[number];
export type LinearSmilesField = keyof (typeof SMILES_FIELD_RULES)["linear"];
export type DendrimerSmilesField = keyof (typeof SMILES_FIELD_RULES)["dendrimer"];
export type BlockSmilesField = LinearSmilesField | DendrimerSmilesField;

const smilesText = text().trim().min(1, REQUIRED_FIELD).max(10_000);

export const blockName = text()
  .trim()
  .min(1, REQUIRED_FIELD)
  .max(BLOCK_NAME_MAX_LENGTH, `The name can have at most ${BLOCK_NAME_MAX_LENGTH} characters`);
const blockDescription = text().trim().max(10_000);

export const linearBlockData = z.object({
  repeating_unit: smilesText,
  head_repeating_unit: smilesText.default(DEFAULT_HEAD_REPEATING_UNIT),
  tail_repeating_unit: smilesText.default(DEFAULT_TAIL_REPEATING_UNIT),
});
export type LinearBlockData = z.infer<typeof linearBlockData>;

export const dendrimerBlockData = z.object({
  central_unit: smilesText,
  repeating_unit: smilesText,
  capping_central_unit: smilesText.default(DEFAULT_CAPPING_CENTRAL_UNIT),
  head_repeating_unit: smilesText.default(DEFAULT_HEAD_REPEATING_UNIT),
  tail_repeating_unit: smilesText.default(DEFAULT_TAIL_REPEATING_UNIT),
});
export type DendrimerBlockData = z.infer<typeof dendrimerBlockData>;

/** Data of the global aminoacid blocks (seeded, read-only). */
export interface AminoacidBlockData {
  one_letter_code: string;
  three_letter_code: string;
  repeating_unit: string;
}

/** The data schema of each creatable type, for the server to parse merged patches with. */
export const BLOCK_DATA_SCHEMAS = { linear: linearBlockData, dendrimer: dendrimerBlockData } as const;

/** POST /v2/building_blocks. Only linear and dendrimer blocks can be created, always with version 0. */
export const createBuildingBlockBody = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("linear"),
    name: blockName,
    description: blockDescription.optional(),
    version: z.literal(0).default(0),
    data: linearBlockData,
  }),
  z.object({
    type: z.literal("dendrimer"),
    name: blockName,
    description: blockDescription.optional(),
    version: z.literal(0).default(0),
    data: dendrimerBlockData,
  }),
]);
export type CreateBuildingBlockBody = z.input<typeof createBuildingBlockBody>;

/** PATCH /v2/building_blocks/{id}: given data fields replace the stored ones, the rest stay. */
export const patchBuildingBlockBody = z.object({
  name: blockName.optional(),
  description: blockDescription.nullable().optional(),
  data: z
    .object({
      central_unit: smilesText.optional(),
      repeating_unit: smilesText.optional(),
      capping_central_unit: smilesText.optional(),
      head_repeating_unit: smilesText.optional(),
      tail_repeating_unit: smilesText.optional(),
    })
    .optional(),
});
export type PatchBuildingBlockBody = z.input<typeof patchBuildingBlockBody>;

const blockTypeFilter = repeatedQuery(z.enum(BLOCK_TYPES));

/** GET /v2/building_blocks. show_archived=true lists the archived blocks instead of the active ones. */
export const buildingBlockListQuery = paginationQuery.extend({
  type: blockTypeFilter,
  name: text().trim().max(BLOCK_NAME_MAX_LENGTH).optional(),
  show_archived: queryBoolean.default(false),
  version: queryInt32().min(0).optional(),
});

/** GET /v2/building_blocks/draft: the active blocks marked for the polymer builder's draft. */
export const buildingBlockDraftListQuery = paginationQuery.extend({
  type: blockTypeFilter,
  name: text().trim().max(BLOCK_NAME_MAX_LENGTH).optional(),
});

export const buildingBlockDraftStatusQuery = z.object({ draft_status: queryBoolean });

export const buildingBlock = z.object({
  id: z.string(),
  name: z.string(),
  type: z.enum(BLOCK_TYPES),
  description: z.string().nullable(),
  version: z.number().int(),
  draft: z.boolean(),
  archived: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
  data: z.record(z.string(), z.string()),
});
export type BuildingBlock = z.infer<typeof buildingBlock>;

export const buildingBlockList = listResponse(buildingBlock);

/**
 * Checks every SMILES field of a block's data against its connection rule. A missing field is
 * skipped (the data schema reports it as required).
 */
export function smilesIssuesByField(
  rdkit: RDKitModule,
  type: CreatableBlockType,
  data: Partial<Record<BlockSmilesField, string>>,
): Partial<Record<BlockSmilesField, SmilesIssue>> {
  const issues: Partial<Record<BlockSmilesField, SmilesIssue>> = {};
  for (const [field, rule] of Object.entries(SMILES_FIELD_RULES[type]) as [BlockSmilesField, ConnectionRule][]) {
    const smiles = data[field];
    if (smiles === undefined) continue;
    const issue = checkConnectionSmiles(rdkit, smiles, rule);
    if (issue) issues[field] = issue;
  }
  return issues;
}
