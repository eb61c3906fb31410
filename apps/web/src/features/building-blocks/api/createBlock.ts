import type { BuildingBlock, CreateBuildingBlockBody } from "@polyforge/contracts/building-blocks";
import { IDEMPOTENCY_KEY_HEADER } from "@polyforge/contracts/idempotency";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { BUILDING_BLOCKS_QUERY_KEY } from "../../../lib/api/buildingBlock";
import { api } from "../../../lib/api/client";
import type { MutationConfig } from "../../../lib/api/mutationConfig";

/** `idempotencyKey`: one per creation form, so a repeated submit answers the block already made. */
export const createBlock = (body: CreateBuildingBlockBody, idempotencyKey?: string) =>
  api.post<BuildingBlock>("/building_blocks", body, {
    headers: idempotencyKey ? { [IDEMPOTENCY_KEY_HEADER]: idempotencyKey } : undefined,
  });

/** Creates a block, then refreshes every building-block query (lists and details). */
export function useCreateBlock({
  idempotencyKey,
  mutationConfig,
}: {
  idempotencyKey?: string;
  mutationConfig?: MutationConfig<BuildingBlock, CreateBuildingBlockBody>;
}) {
  const queryClient = useQueryClient();
  const { onSuccess, ...rest } = mutationConfig ?? {};
  return useMutation({
    ...rest,
    mutationFn: (body: CreateBuildingBlockBody) => createBlock(body, idempotencyKey),
    onSuccess: async (...args) => {
      await queryClient.invalidateQueries({ queryKey: BUILDING_BLOCKS_QUERY_KEY });
      await onSuccess?.(...args);
    },
  });
}
