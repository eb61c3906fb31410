import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";
import type { MutationConfig } from "../../../lib/api/mutationConfig";
import { SYSTEMS_QUERY_KEY, systemPath } from "../../../lib/api/systems";

export const archiveSystem = (id: string) => api.delete<null>(systemPath(id));

/** Archives a system; the systems refresh whether it worked or not. */
export function useArchiveSystem(id: string, mutationConfig?: MutationConfig<null>) {
  const queryClient = useQueryClient();
  const { onSettled, ...rest } = mutationConfig ?? {};
  return useMutation({
    ...rest,
    mutationFn: () => archiveSystem(id),
    onSettled: async (...args) => {
      await onSettled?.(...args);
      await queryClient.invalidateQueries({ queryKey: SYSTEMS_QUERY_KEY });
    },
  });
}
