import type { PolymerCreateBody, PolymerResponse } from "@polyforge/contracts/polymers";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";
import type { MutationConfig } from "../../../lib/api/mutationConfig";
import { queryKeys } from "./builderKeys";

export const createPolymer = (body: PolymerCreateBody) => api.post<PolymerResponse>("/polymers", body);

/** Creates a polymer; every builder query is read again (the setup's choices follow) before the
 * caller's onSuccess. */
export function useCreatePolymer(mutationConfig?: MutationConfig<PolymerResponse, PolymerCreateBody>) {
  const queryClient = useQueryClient();
  const { onSuccess, ...rest } = mutationConfig ?? {};
  return useMutation({
    ...rest,
    mutationFn: createPolymer,
    onSuccess: async (...args) => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.all });
      await onSuccess?.(...args);
    },
  });
}
