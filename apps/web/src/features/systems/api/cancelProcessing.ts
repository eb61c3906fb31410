import type { SystemExecution } from "@polyforge/contracts/system-executions";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";
import type { MutationConfig } from "../../../lib/api/mutationConfig";
import { SYSTEMS_QUERY_KEY, systemPath } from "../../../lib/api/systems";
import { storeExecution } from "../../../lib/notifications/systemUpdates";

export const cancelProcessing = (id: string) => api.delete<SystemExecution>(`${systemPath(id)}/process/cancel`);

/** Cancels a system's processing. The cancel answers the cancelled run, which every cached copy
 * takes at once (the tag changes with the toast); only a failed cancel asks the server again. */
export function useCancelProcessing(id: string, mutationConfig?: MutationConfig<SystemExecution>) {
  const queryClient = useQueryClient();
  const { onSuccess, onError, ...rest } = mutationConfig ?? {};
  return useMutation({
    ...rest,
    mutationFn: () => cancelProcessing(id),
    onSuccess: async (...args) => {
      storeExecution(queryClient, id, args[0]);
      await onSuccess?.(...args);
    },
    onError: async (...args) => {
      await onError?.(...args);
      await queryClient.invalidateQueries({ queryKey: SYSTEMS_QUERY_KEY });
    },
  });
}
