import type { SystemSetupBody, SystemSetupResponse } from "@polyforge/contracts/polymer-builder";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";
import type { MutationConfig } from "../../../lib/api/mutationConfig";
import { queryKeys } from "./builderKeys";

export const saveSetup = (id: string, body: SystemSetupBody) =>
  api.patch<SystemSetupResponse>(`/polymer_builder_systems/system_setup/${encodeURIComponent(id)}`, body);

/** Saves step 4; the cached setup becomes the server's answer. */
export function useSaveSetup(id: string, mutationConfig?: MutationConfig<SystemSetupResponse, SystemSetupBody>) {
  const queryClient = useQueryClient();
  const { onSuccess, ...rest } = mutationConfig ?? {};
  return useMutation({
    ...rest,
    mutationFn: (body: SystemSetupBody) => saveSetup(id, body),
    onSuccess: async (...args) => {
      queryClient.setQueryData(queryKeys.setup, args[0]);
      await onSuccess?.(...args);
    },
  });
}
