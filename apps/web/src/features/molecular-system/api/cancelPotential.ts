import type { PotentialResponse } from "@polyforge/contracts/potentials";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";
import type { MutationConfig } from "../../../lib/api/mutationConfig";
import { SYSTEMS_QUERY_KEY } from "../../../lib/api/systems";
import { potentialPath } from "./getPotentials";

/** Stops a generation that is waiting or running (its engine is stopped). */
export const cancelPotential = (systemId: string, potentialId: string) =>
  api.delete<PotentialResponse>(`${potentialPath(systemId, potentialId)}/process/cancel`);

/** Cancels a generation; the systems' queries refresh either way. */
export function useCancelPotential(
  systemId: string,
  potentialId: string,
  mutationConfig?: MutationConfig<PotentialResponse>,
) {
  const queryClient = useQueryClient();
  const { onSettled, ...rest } = mutationConfig ?? {};
  return useMutation({
    ...rest,
    mutationFn: () => cancelPotential(systemId, potentialId),
    onSettled: async (...args) => {
      await onSettled?.(...args);
      await queryClient.invalidateQueries({ queryKey: SYSTEMS_QUERY_KEY });
    },
  });
}
