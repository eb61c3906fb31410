import type { ListResponse } from "@polyforge/contracts/pagination";
import { type QueryKey, useMutation, useQueryClient } from "@tanstack/react-query";
import { toast } from "sonner";
import { queryKeys } from "./api/builderKeys";

/**
 * Deletes an item of a cached list at once and restores the list if the server refuses (SPEC §4:
 * deletions of segments and polymers are optimistic, restored on failure).
 */
export function useOptimisticDelete<T extends { id: string }>(
  listKey: QueryKey,
  remove: (id: string) => Promise<unknown>,
  messages: { deleted: string; failed: string },
) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: remove,
    onMutate: async (id: string) => {
      await queryClient.cancelQueries({ queryKey: listKey });
      const previous = queryClient.getQueryData<ListResponse<T>>(listKey);
      if (previous) {
        queryClient.setQueryData<ListResponse<T>>(listKey, {
          data: previous.data.filter((item) => item.id !== id),
          metadata: { ...previous.metadata, num_records: previous.metadata.num_records - 1 },
        });
      }
      return { previous };
    },
    onError: (error, _id, context) => {
      if (context?.previous) queryClient.setQueryData(listKey, context.previous);
      toast.error(messages.failed, { description: error.message });
    },
    onSuccess: () => toast.success(messages.deleted),
    // Anything derived from the list (other steps' lists, the setup) is read again.
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.all }),
  });
}
