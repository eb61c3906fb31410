import type { SimulationProtocolBody, SimulationProtocolResponse } from "@polyforge/contracts/polymer-builder";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";
import type { MutationConfig } from "../../../lib/api/mutationConfig";
import { queryKeys } from "./builderKeys";

export const saveProtocol = (id: string, body: SimulationProtocolBody) =>
  api.patch<SimulationProtocolResponse>(`/polymer_builder_systems/simulation_protocol/${encodeURIComponent(id)}`, body);

/** Saves step 5; the cached protocol becomes the server's answer. */
export function useSaveProtocol(
  id: string,
  mutationConfig?: MutationConfig<SimulationProtocolResponse, SimulationProtocolBody>,
) {
  const queryClient = useQueryClient();
  const { onSuccess, ...rest } = mutationConfig ?? {};
  return useMutation({
    ...rest,
    mutationFn: (body: SimulationProtocolBody) => saveProtocol(id, body),
    onSuccess: async (...args) => {
      queryClient.setQueryData(queryKeys.protocol, args[0]);
      await onSuccess?.(...args);
    },
  });
}
