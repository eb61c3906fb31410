import type { BuildingBlock } from "@polyforge/contracts/building-blocks";
import type { BlockType } from "@polyforge/contracts/enums";
import type { ListResponse } from "@polyforge/contracts/pagination";
import { keepPreviousData, queryOptions, useQuery } from "@tanstack/react-query";
import { BUILDING_BLOCKS_QUERY_KEY } from "../../../lib/api/buildingBlock";
import { api } from "../../../lib/api/client";

export interface BlockListParams {
  page_num: number;
  page_size: number;
  type: BlockType[];
  name?: string;
  show_archived: boolean;
}

export const blockListQueryKey = (params: BlockListParams) => [...BUILDING_BLOCKS_QUERY_KEY, "list", params] as const;

export const fetchBlocks = (params: BlockListParams) =>
  api.get<ListResponse<BuildingBlock>>("/building_blocks", { query: { ...params } });

export const blocksQueryOptions = (params: BlockListParams) =>
  queryOptions({ queryKey: blockListQueryKey(params), queryFn: () => fetchBlocks(params) });

/** One page of the catalogue; the previous page stays shown while the next one loads. */
export const useBlocks = (params: BlockListParams) =>
  useQuery({ ...blocksQueryOptions(params), placeholderData: keepPreviousData });
