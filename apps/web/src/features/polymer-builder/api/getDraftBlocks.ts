import type { BuildingBlock } from "@polyforge/contracts/building-blocks";
import type { ListResponse } from "@polyforge/contracts/pagination";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";
import { OWN_BLOCK_TYPES, PAGE_SIZES, queryKeys } from "./builderKeys";

export const fetchDraftBlocks = () =>
  api.get<ListResponse<BuildingBlock>>("/building_blocks/draft", {
    query: { page_num: 1, page_size: PAGE_SIZES.draftItems },
  });

/** A searched page of the draft's blocks (the segment forms' picker, under queryKeys.draftBlocksPage). */
export const fetchDraftBlocksPage = (name: string, page: number) =>
  api.get<ListResponse<BuildingBlock>>("/building_blocks/draft", {
    query: { page_num: page, page_size: PAGE_SIZES.list, type: OWN_BLOCK_TYPES, name },
  });

export const draftBlocksQueryOptions = () =>
  queryOptions({ queryKey: queryKeys.draftBlocks, queryFn: fetchDraftBlocks });

export const useDraftBlocks = () => useQuery(draftBlocksQueryOptions());
