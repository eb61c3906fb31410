import { BLOCK_TYPES, SYSTEM_TYPES } from "@polyforge/contracts/enums";
import { z } from "zod";

/** A search value given once (`?type=linear`) or as a list; anything else is left for `.catch`. */
const asList = (value: unknown) => (typeof value === "string" ? [value] : value);

/** /building-blocks: archived (default false) and block types (default all); invalid values → defaults. */
export const buildingBlocksSearchSchema = z.object({
  archived: z.boolean().default(false).catch(false),
  type: z
    .preprocess(asList, z.array(z.enum(BLOCK_TYPES)).min(1))
    .default([...BLOCK_TYPES])
    .catch([...BLOCK_TYPES]),
});

/** /building-blocks/$blockId: the block's type, when the link knows it. */
export const buildingBlockDetailSearchSchema = z.object({
  type: z.enum(BLOCK_TYPES).optional().catch(undefined),
});

/** /systems: type defaults to molecule; invalid values fall back to molecule. */
export const systemsSearchSchema = z.object({
  type: z.enum(SYSTEM_TYPES).default("molecule").catch("molecule"),
  /** Only one project's systems; dropped when it is not a uuid. */
  project_id: z.uuid().optional().catch(undefined),
});

/** /add-molecular-system: an optional system id, dropped when it is not a uuid. */
export const addMolecularSystemSearchSchema = z.object({
  systemId: z.uuid().optional().catch(undefined),
});
