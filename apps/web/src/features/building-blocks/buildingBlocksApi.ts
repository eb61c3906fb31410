import type {
  BuildingBlock,
  CreateBuildingBlockBody,
  PatchBuildingBlockBody,
} from "@polyforge/contracts/building-blocks";
import type { BlockType } from "@polyforge/contracts/enums";
import { IDEMPOTENCY_KEY_HEADER } from "@polyforge/contracts/idempotency";
import type { ListResponse } from "@polyforge/contracts/pagination";
import { BUILDING_BLOCKS_QUERY_KEY } from "../../lib/api/buildingBlock";
import { api } from "../../lib/api/client";

export { BUILDING_BLOCKS_QUERY_KEY } from "../../lib/api/buildingBlock";

export interface BlockListParams {
  page_num: number;
  page_size: number;
  type: BlockType[];
  name?: string;
  show_archived: boolean;
}

export const blockListQueryKey = (params: BlockListParams) => [...BUILDING_BLOCKS_QUERY_KEY, "list", params] as const;

export const fetchBlocks = (params: BlockListParams) =>
  api.get<ListResponse<BuildingBlock>>("/building_blocks", { query: { ...params } });
/** `idempotencyKey`: one per creation form, so a repeated submit answers the block already made. */
export const createBlock = (body: CreateBuildingBlockBody, idempotencyKey?: string) =>
  api.post<BuildingBlock>("/building_blocks", body, {
    headers: idempotencyKey ? { [IDEMPOTENCY_KEY_HEADER]: idempotencyKey } : undefined,
  });
export const patchBlock = (id: string, body: PatchBuildingBlockBody) =>
  api.patch<BuildingBlock>(`/building_blocks/${encodeURIComponent(id)}`, body);
export const archiveBlock = (id: string) => api.delete<BuildingBlock>(`/building_blocks/${encodeURIComponent(id)}`);
export const recoverBlock = (id: string) =>
  api.patch<BuildingBlock>(`/building_blocks/${encodeURIComponent(id)}/recover`);
