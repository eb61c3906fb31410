import type { BuildingBlock } from "@polyforge/contracts/building-blocks";
import type { ListResponse } from "@polyforge/contracts/pagination";
import { api } from "../../../lib/api/client";
import { OWN_BLOCK_TYPES, PAGE_SIZES } from "./builderKeys";

/** A page of the user's blocks to add to the draft (step 1); SearchableList asks under
 * queryKeys.catalogueBlocks. */
export const fetchCatalogueBlocks = (name: string, page: number) =>
  api.get<ListResponse<BuildingBlock>>("/building_blocks", {
    query: { page_num: page, page_size: PAGE_SIZES.list, type: OWN_BLOCK_TYPES, name },
  });
