import type { ListResponse } from "@polyforge/contracts/pagination";
import type { PolymerResponse } from "@polyforge/contracts/polymers";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";
import { PAGE_SIZES, queryKeys } from "./builderKeys";

/** The draft's polymers; a searched page of them is asked under queryKeys.draftPolymersPage. */
export const fetchDraftPolymers = (name?: string, page = 1, pageSize: number = PAGE_SIZES.draftItems) =>
  api.get<ListResponse<PolymerResponse>>("/polymers/draft", { query: { page_num: page, page_size: pageSize, name } });

export const draftPolymersQueryOptions = () =>
  queryOptions({ queryKey: queryKeys.draftPolymers, queryFn: () => fetchDraftPolymers() });

export const useDraftPolymers = () => useQuery(draftPolymersQueryOptions());
