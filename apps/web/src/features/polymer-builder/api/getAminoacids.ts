import type { BuildingBlock } from "@polyforge/contracts/building-blocks";
import type { ListResponse } from "@polyforge/contracts/pagination";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";
import { PAGE_SIZES, queryKeys } from "./builderKeys";

export const fetchAminoacids = () =>
  api.get<ListResponse<BuildingBlock>>("/building_blocks", {
    query: { page_num: 1, page_size: PAGE_SIZES.aminoacids, type: ["aminoacid"] },
  });

export const aminoacidsQueryOptions = () => queryOptions({ queryKey: queryKeys.aminoacids, queryFn: fetchAminoacids });

export const useAminoacids = () => useQuery(aminoacidsQueryOptions());
