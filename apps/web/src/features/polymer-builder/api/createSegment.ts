import type { SegmentCreateBody, SegmentResponse } from "@polyforge/contracts/segments";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";
import type { MutationConfig } from "../../../lib/api/mutationConfig";
import { queryKeys } from "./builderKeys";

export const createSegment = (body: SegmentCreateBody) => api.post<SegmentResponse>("/segments", body);

/** Creates a segment; the draft's segments are read again before the caller's onSuccess. */
export function useCreateSegment(mutationConfig?: MutationConfig<SegmentResponse, SegmentCreateBody>) {
  const queryClient = useQueryClient();
  const { onSuccess, ...rest } = mutationConfig ?? {};
  return useMutation({
    ...rest,
    mutationFn: (body: SegmentCreateBody) => createSegment(body),
    onSuccess: async (...args) => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.draftSegments });
      await onSuccess?.(...args);
    },
  });
}
