import type { SystemExecution } from "@polyforge/contracts/system-executions";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";
import type { MutationConfig } from "../../../lib/api/mutationConfig";
import { SYSTEMS_QUERY_KEY, systemPath } from "../../../lib/api/systems";

export const cancelProcessing = (id: string) => api.delete<SystemExecution>(`${systemPath(id)}/process/cancel`);

/** Cancels a system's processing; the systems refresh whether it worked or not. */
export function useCancelProcessing(id: string, mutationConfig?: MutationConfig<SystemExecution>) {
  const queryClient = useQueryClient();
  const { onSettled, ...rest } = mutationConfig ?? {};
  return useMutation({
    ...rest,
    mutationFn: () => cancelProcessing(id),
    onSettled: async (...args) => {
      await onSettled?.(...args);
      await queryClient.invalidateQueries({ queryKey: SYSTEMS_QUERY_KEY });
    },
  });
}
