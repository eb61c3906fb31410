import type { BuildingBlock } from "@polyforge/contracts/building-blocks";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { BUILDING_BLOCKS_QUERY_KEY } from "../../../lib/api/buildingBlock";
import { api } from "../../../lib/api/client";
import type { MutationConfig } from "../../../lib/api/mutationConfig";

export const archiveBlock = (id: string) => api.delete<BuildingBlock>(`/building_blocks/${encodeURIComponent(id)}`);

/** Archives a block, then refreshes every building-block query. */
export function useArchiveBlock(id: string, mutationConfig?: MutationConfig<BuildingBlock>) {
  const queryClient = useQueryClient();
  const { onSuccess, ...rest } = mutationConfig ?? {};
  return useMutation({
    ...rest,
    mutationFn: () => archiveBlock(id),
    onSuccess: async (...args) => {
      void queryClient.invalidateQueries({ queryKey: BUILDING_BLOCKS_QUERY_KEY });
      await onSuccess?.(...args);
    },
  });
}
