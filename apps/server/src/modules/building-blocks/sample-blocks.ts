import type { Db } from "../../platform/db/database";
import type { UserRow } from "../../platform/identity/schema";
import { insertBlocks } from "./repository";
import type { NewBuildingBlockRow } from "./schema";

type SampleBlock = Pick<NewBuildingBlockRow, "name" | "type" | "description" | "data">;

/**
 * Well-known units every new user starts with, so the catalogue is not empty. Each repeating unit
 * runs head [*:1] to tail [*:2] the way its polymer grows; caps are the defaults (hydrogens).
 */
export const SAMPLE_BLOCKS: SampleBlock[] = [
  {
    name: "Ethylene",
    type: "linear",
    description: "Repeating unit of polyethylene, –CH2–CH2–.",
    data: { repeating_unit: "[*:1]CC[*:2]", head_repeating_unit: "[*:2][H]", tail_repeating_unit: "[*:1][H]" },
  },
  {
    name: "Styrene",
    type: "linear",
    description: "Repeating unit of polystyrene, head-to-tail.",
    data: {
      repeating_unit: "[*:1]CC(c1ccccc1)[*:2]",
      head_repeating_unit: "[*:2][H]",
      tail_repeating_unit: "[*:1][H]",
    },
  },
  {
    name: "Methyl methacrylate",
    type: "linear",
    description: "Repeating unit of poly(methyl methacrylate) (PMMA).",
    data: {
      repeating_unit: "[*:1]CC(C)(C(=O)OC)[*:2]",
      head_repeating_unit: "[*:2][H]",
      tail_repeating_unit: "[*:1][H]",
    },
  },
  {
    name: "Ethylene oxide",
    type: "linear",
    description: "Repeating unit of poly(ethylene glycol), –CH2–CH2–O–.",
    data: { repeating_unit: "[*:1]CCO[*:2]", head_repeating_unit: "[*:2][H]", tail_repeating_unit: "[*:1][H]" },
  },
  {
    name: "Lactic acid",
    type: "linear",
    description: "Repeating unit of poly(L-lactic acid), –O–CH(CH3)–C(=O)–; capped as hydroxyl and acid ends.",
    data: {
      repeating_unit: "[*:1]O[C@@H](C)C(=O)[*:2]",
      head_repeating_unit: "[*:2][H]",
      tail_repeating_unit: "[*:1]O",
    },
  },
  {
    name: "PAMAM",
    type: "dendrimer",
    description: "Poly(amidoamine) dendrimer: ethylenediamine core, amidoamine branches.",
    data: {
      central_unit: "[*:2]N([*:2])CCN([*:2])[*:2]",
      repeating_unit: "[*:1]CCC(=O)NCCN([*:2])[*:2]",
      capping_central_unit: "[*:1][H]",
      head_repeating_unit: "[*:2][H]",
      tail_repeating_unit: "[*:1][H]",
    },
  },
];

/** The onUserProvisioned hook: runs inside the provisioning transaction. */
export async function addSampleBlocks(tx: Db, user: UserRow): Promise<void> {
  await insertBlocks(
    tx,
    SAMPLE_BLOCKS.map((block) => ({ ...block, ownerId: user.id })),
  );
}
