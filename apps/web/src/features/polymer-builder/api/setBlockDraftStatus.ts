import type { BuildingBlock } from "@polyforge/contracts/building-blocks";
import { api } from "../../../lib/api/client";

/** Adds a block to the draft or takes it out. No hook: step 1's add and remove are optimistic
 * sequences of their own (BuildingBlocksStep). */
export const setBlockDraftStatus = (id: string, draft: boolean) =>
  api.patch<BuildingBlock>(`/building_blocks/${encodeURIComponent(id)}/draft`, undefined, {
    query: { draft_status: draft },
  });
