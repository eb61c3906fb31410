import type { BuildingBlock } from "@polyforge/contracts/building-blocks";
import { queryOptions } from "@tanstack/react-query";
import { api } from "./client";

/** Every building-block query starts with this key, so one invalidation refreshes lists and details. */
export const BUILDING_BLOCKS_QUERY_KEY = ["building-blocks"] as const;

export const fetchBlock = (id: string) => api.get<BuildingBlock>(`/building_blocks/${encodeURIComponent(id)}`);

/** One building block: the catalogue's detail page and the builder read it through one cache. */
export const blockQueryOptions = (id: string) =>
  queryOptions({ queryKey: [...BUILDING_BLOCKS_QUERY_KEY, "detail", id] as const, queryFn: () => fetchBlock(id) });
