import type { PotentialResponse, PotentialsList } from "@polyforge/contracts/potentials";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";
import type { MutationConfig } from "../../../lib/api/mutationConfig";
import { potentialPath, potentialsQueryKey } from "../../../lib/api/potentials";
import { SYSTEMS_QUERY_KEY } from "../../../lib/api/systems";

/** Stops a generation that is waiting or running (its engine is stopped). */
export const cancelPotential = (systemId: string, potentialId: string) =>
  api.delete<PotentialResponse>(`${potentialPath(systemId, potentialId)}/process/cancel`);

/** Cancels a generation. The cancel answers the cancelled potential, which its system's list takes
 * at once (the tag changes with the toast); only a failed cancel asks the server again. */
export function useCancelPotential(
  systemId: string,
  potentialId: string,
  mutationConfig?: MutationConfig<PotentialResponse>,
) {
  const queryClient = useQueryClient();
  const { onSuccess, onError, ...rest } = mutationConfig ?? {};
  return useMutation({
    ...rest,
    mutationFn: () => cancelPotential(systemId, potentialId),
    onSuccess: async (...args) => {
      const [cancelled] = args;
      queryClient.setQueryData<PotentialsList>(potentialsQueryKey(systemId), (list) =>
        list ? { ...list, data: list.data.map((p) => (p.id === cancelled.id ? cancelled : p)) } : list,
      );
      await onSuccess?.(...args);
    },
    onError: async (...args) => {
      await onError?.(...args);
      await queryClient.invalidateQueries({ queryKey: SYSTEMS_QUERY_KEY });
    },
  });
}
