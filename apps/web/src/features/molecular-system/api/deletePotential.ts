import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";
import type { MutationConfig } from "../../../lib/api/mutationConfig";
import { potentialPath } from "../../../lib/api/potentials";
import { SYSTEMS_QUERY_KEY } from "../../../lib/api/systems";

export const deletePotential = (systemId: string, potentialId: string) =>
  api.delete<null>(potentialPath(systemId, potentialId));

/** Deletes a potential; the systems' queries refresh either way. */
export function useDeletePotential(systemId: string, potentialId: string, mutationConfig?: MutationConfig<null>) {
  const queryClient = useQueryClient();
  const { onSettled, ...rest } = mutationConfig ?? {};
  return useMutation({
    ...rest,
    mutationFn: () => deletePotential(systemId, potentialId),
    onSettled: async (...args) => {
      await onSettled?.(...args);
      await queryClient.invalidateQueries({ queryKey: SYSTEMS_QUERY_KEY });
    },
  });
}
