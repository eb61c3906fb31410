import type { BuildingBlock, PatchBuildingBlockBody } from "@polyforge/contracts/building-blocks";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { BUILDING_BLOCKS_QUERY_KEY, blockQueryOptions } from "../../../lib/api/buildingBlock";
import { api } from "../../../lib/api/client";
import type { MutationConfig } from "../../../lib/api/mutationConfig";

export const patchBlock = (id: string, body: PatchBuildingBlockBody) =>
  api.patch<BuildingBlock>(`/building_blocks/${encodeURIComponent(id)}`, body);

/** Edits a block: the detail shows the server's answer at once, and the lists refresh. */
export function useUpdateBlock(id: string, mutationConfig?: MutationConfig<BuildingBlock, PatchBuildingBlockBody>) {
  const queryClient = useQueryClient();
  const { onSuccess, ...rest } = mutationConfig ?? {};
  return useMutation({
    ...rest,
    mutationFn: (body: PatchBuildingBlockBody) => patchBlock(id, body),
    onSuccess: async (...args) => {
      queryClient.setQueryData(blockQueryOptions(id).queryKey, args[0]);
      void queryClient.invalidateQueries({ queryKey: BUILDING_BLOCKS_QUERY_KEY });
      await onSuccess?.(...args);
    },
  });
}
