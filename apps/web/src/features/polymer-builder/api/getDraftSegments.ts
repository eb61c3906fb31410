import type { SegmentType } from "@polyforge/contracts/enums";
import type { ListResponse } from "@polyforge/contracts/pagination";
import type { SegmentResponse } from "@polyforge/contracts/segments";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";
import { PAGE_SIZES, queryKeys } from "./builderKeys";

export const fetchDraftSegments = (type?: SegmentType, pageSize: number = PAGE_SIZES.draftItems) =>
  api.get<ListResponse<SegmentResponse>>("/segments/draft", { query: { page_num: 1, page_size: pageSize, type } });

export const draftSegmentsQueryOptions = () =>
  queryOptions({ queryKey: queryKeys.draftSegments, queryFn: () => fetchDraftSegments() });

export const useDraftSegments = () => useQuery(draftSegmentsQueryOptions());
