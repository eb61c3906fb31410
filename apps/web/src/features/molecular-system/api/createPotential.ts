import type { CreatePotentialInput, PotentialResponse } from "@polyforge/contracts/potentials";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";
import type { MutationConfig } from "../../../lib/api/mutationConfig";
import { potentialsPath } from "../../../lib/api/potentials";
import { SYSTEMS_QUERY_KEY } from "../../../lib/api/systems";

export const createPotential = (systemId: string, body: CreatePotentialInput) =>
  api.post<PotentialResponse>(`${potentialsPath(systemId)}/`, body);

/** Adds a potential; whatever the answer, the systems' queries (potentials among them) refresh. */
export function useCreatePotential(
  systemId: string,
  mutationConfig?: MutationConfig<PotentialResponse, CreatePotentialInput>,
) {
  const queryClient = useQueryClient();
  const { onSettled, ...rest } = mutationConfig ?? {};
  return useMutation({
    ...rest,
    mutationFn: (body: CreatePotentialInput) => createPotential(systemId, body),
    onSettled: async (...args) => {
      await onSettled?.(...args);
      await queryClient.invalidateQueries({ queryKey: SYSTEMS_QUERY_KEY });
    },
  });
}
