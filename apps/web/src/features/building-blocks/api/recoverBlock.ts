import type { BuildingBlock } from "@polyforge/contracts/building-blocks";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { BUILDING_BLOCKS_QUERY_KEY } from "../../../lib/api/buildingBlock";
import { api } from "../../../lib/api/client";
import type { MutationConfig } from "../../../lib/api/mutationConfig";

export const recoverBlock = (id: string) =>
  api.patch<BuildingBlock>(`/building_blocks/${encodeURIComponent(id)}/recover`);

/** Brings an archived block back, then refreshes every building-block query. */
export function useRecoverBlock(id: string, mutationConfig?: MutationConfig<BuildingBlock>) {
  const queryClient = useQueryClient();
  const { onSuccess, ...rest } = mutationConfig ?? {};
  return useMutation({
    ...rest,
    mutationFn: () => recoverBlock(id),
    onSuccess: async (...args) => {
      void queryClient.invalidateQueries({ queryKey: BUILDING_BLOCKS_QUERY_KEY });
      await onSuccess?.(...args);
    },
  });
}
