import type { BlockType } from "@polyforge/contracts/enums";

/** SPEC §9 page sizes used by the builder. */
export const PAGE_SIZES = { list: 10, draftItems: 100, probe: 1, aminoacids: 50 } as const;

/** The builder's own block types (aminoacids go in as peptide segments). */
export const OWN_BLOCK_TYPES: BlockType[] = ["linear", "dendrimer"];

/** Every builder query starts with this key, so clearing the draft refreshes them all at once. The
 * one place the builder's keys are made; each request file under api/ uses its entry. */
const ROOT = ["polymer-builder"] as const;
export const queryKeys = {
  all: ROOT,
  draft: [...ROOT, "draft"] as const,
  catalogueBlocks: (name: string, page: number) => [...ROOT, "catalogue-blocks", name, page] as const,
  draftBlocks: [...ROOT, "draft-blocks"] as const,
  draftBlocksPage: (name: string, page: number) => [...ROOT, "draft-blocks", name, page] as const,
  draftPolymersPage: (name: string, page: number) => [...ROOT, "draft-polymers", name, page] as const,
  draftSegments: [...ROOT, "draft-segments"] as const,
  draftPolymers: [...ROOT, "draft-polymers"] as const,
  setup: [...ROOT, "setup"] as const,
  protocol: [...ROOT, "protocol"] as const,
  aminoacids: [...ROOT, "aminoacids"] as const,
};
