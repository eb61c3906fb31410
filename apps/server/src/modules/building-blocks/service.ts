import {
  BLOCK_DATA_SCHEMAS,
  type BlockSmilesField,
  type BuildingBlock,
  type CreatableBlockType,
  type createBuildingBlockBody,
  type patchBuildingBlockBody,
} from "@polyforge/contracts/building-blocks";
import { type BlockType, CREATABLE_BLOCK_TYPES } from "@polyforge/contracts/enums";
import { BuildingBlockErrors } from "@polyforge/contracts/errors";
import type { ListResponse } from "@polyforge/contracts/pagination";
import type { z } from "zod";
import { smilesChecker } from "../../platform/chemistry/smiles-checker";
import type { Db } from "../../platform/db/database";
import { isUniqueViolation } from "../../platform/db/errors";
import { AppError } from "../../platform/errors";
import { requireUuid } from "../../platform/ids";
import { listPage, type Page } from "../../platform/pagination";
import { type UsageCheck, UsageChecks } from "../../platform/usage-checks";
import {
  type BlockChanges,
  type BlockListFilter,
  findBlockByIdempotencyKey,
  findVisibleBlock,
  insertBlocks,
  listBlocks,
  updateOwnBlock,
} from "./repository";
import type { BuildingBlockRow } from "./schema";

/** Whether something built from a block (a segment) uses it: a block whose chemistry changed
 * under it would corrupt what was built (modules/wiring.ts registers the segments module's check). */
const blockUsage = new UsageChecks();

export function onBlockUsageCheck(check: UsageCheck): void {
  blockUsage.register(check);
}

/** A path id that is not a UUID is a client error, before any lookup. */
export function assertBlockId(id: string): void {
  requireUuid(id, BuildingBlockErrors.VALIDATE_ID_INVALID_FORMAT);
}

export function toBuildingBlock(row: BuildingBlockRow): BuildingBlock {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    description: row.description,
    version: row.version,
    draft: row.draft,
    archived: row.archivedAt !== null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    data: row.data,
  };
}

/** The server's check of every SMILES field: the first broken rule answers 400 with its code. */
async function assertValidSmiles(
  userId: string,
  type: CreatableBlockType,
  data: Partial<Record<BlockSmilesField, string>>,
) {
  const [firstIssue] = Object.entries(await smilesChecker.blockIssues(type, data, userId));
  if (firstIssue) {
    const [field, issue] = firstIssue;
    throw new AppError(400, issue.code, { field, message: issue.message });
  }
}

export async function listBuildingBlocks(
  db: Db,
  userId: string,
  filter: BlockListFilter,
  page: Page,
): Promise<ListResponse<BuildingBlock>> {
  const { rows, total } = await listBlocks(db, userId, filter, page);
  return listPage(rows.map(toBuildingBlock), page, total);
}

export async function getBuildingBlock(db: Db, userId: string, id: string): Promise<BuildingBlock> {
  assertBlockId(id);
  const row = await findVisibleBlock(db, userId, id);
  if (!row) throw new AppError(404, BuildingBlockErrors.GET_NOT_FOUND, { id });
  return toBuildingBlock(row);
}

/** POST /building_blocks. With an Idempotency-Key, a create repeated with the same key (a double
 * click, a retry after a lost answer) answers the block the first one made instead of a second. */
export async function createBuildingBlock(
  db: Db,
  userId: string,
  body: z.output<typeof createBuildingBlockBody>,
  idempotencyKey?: string,
): Promise<BuildingBlock> {
  if (idempotencyKey) {
    const earlier = await findBlockByIdempotencyKey(db, userId, idempotencyKey);
    if (earlier) return toBuildingBlock(earlier);
  }
  await assertValidSmiles(userId, body.type, body.data);
  let row: BuildingBlockRow | undefined;
  try {
    [row] = await insertBlocks(db, [
      {
        ownerId: userId,
        name: body.name,
        type: body.type,
        description: body.description ?? null,
        version: body.version,
        data: body.data,
        idempotencyKey: idempotencyKey ?? null,
      },
    ]);
  } catch (error) {
    // The same key arrived twice at once: the other request made the block.
    const earlier =
      idempotencyKey && isUniqueViolation(error)
        ? await findBlockByIdempotencyKey(db, userId, idempotencyKey)
        : undefined;
    if (!earlier) throw error;
    row = earlier;
  }
  if (!row) throw new AppError(500, BuildingBlockErrors.CREATE_FAILED);
  return toBuildingBlock(row);
}

/** Looks up a block the caller may change: their own and not an aminoacid. */
async function findEditableBlock(
  db: Db,
  userId: string,
  id: string,
  notFound: (typeof BuildingBlockErrors)[keyof typeof BuildingBlockErrors],
): Promise<BuildingBlockRow & { type: CreatableBlockType }> {
  assertBlockId(id);
  const row = await findVisibleBlock(db, userId, id);
  if (!row) throw new AppError(404, notFound, { id });
  // Aminoacids are global and read-only: a valid request that the block's state refuses (409).
  if (!isCreatableType(row.type))
    throw new AppError(409, BuildingBlockErrors.VALIDATE_TYPE_INVALID, { type: row.type });
  return row as BuildingBlockRow & { type: CreatableBlockType };
}

function isCreatableType(type: BlockType): type is CreatableBlockType {
  return (CREATABLE_BLOCK_TYPES as readonly BlockType[]).includes(type);
}

/** Saves a change to one of the caller's blocks; the row can vanish between lookup and update. */
async function saveChanges(
  db: Db,
  userId: string,
  id: string,
  changes: BlockChanges,
  notFound: (typeof BuildingBlockErrors)[keyof typeof BuildingBlockErrors],
): Promise<BuildingBlock> {
  const row = await updateOwnBlock(db, userId, id, changes);
  if (!row) throw new AppError(404, notFound, { id });
  return toBuildingBlock(row);
}

/**
 * Name and description change freely. Given data fields replace the stored ones; the merged data is
 * checked as a whole and bumps the version. Blocks used by a segment keep their chemistry (IN_USE).
 */
export async function patchBuildingBlock(
  db: Db,
  userId: string,
  id: string,
  body: z.output<typeof patchBuildingBlockBody>,
): Promise<BuildingBlock> {
  const block = await findEditableBlock(db, userId, id, BuildingBlockErrors.UPDATE_NOT_FOUND);
  const changes: BlockChanges = {};
  if (body.name !== undefined) changes.name = body.name;
  if (body.description !== undefined) changes.description = body.description;
  if (body.data) {
    const merged = BLOCK_DATA_SCHEMAS[block.type].safeParse({ ...block.data, ...body.data });
    if (!merged.success) throw new AppError(400, BuildingBlockErrors.VALIDATE_SMILES_INVALID_FORMAT);
    await assertValidSmiles(userId, block.type, merged.data);
    const mergedData: Record<string, string> = merged.data;
    const dataChanged = Object.keys(mergedData).some((field) => mergedData[field] !== block.data[field]);
    if (dataChanged) {
      if (await blockUsage.isUsed(db, block.id)) throw new AppError(409, BuildingBlockErrors.UPDATE_IN_USE, { id });
      changes.data = mergedData;
      changes.version = block.version + 1;
    }
  }
  return saveChanges(db, userId, id, changes, BuildingBlockErrors.UPDATE_NOT_FOUND);
}

/** DELETE archives (soft); archiving an archived block changes nothing. */
export async function archiveBuildingBlock(db: Db, userId: string, id: string): Promise<BuildingBlock> {
  const block = await findEditableBlock(db, userId, id, BuildingBlockErrors.DELETE_NOT_FOUND);
  if (block.archivedAt) return toBuildingBlock(block);
  return saveChanges(db, userId, id, { archived: true, draft: false }, BuildingBlockErrors.DELETE_NOT_FOUND);
}

export async function recoverBuildingBlock(db: Db, userId: string, id: string): Promise<BuildingBlock> {
  const block = await findEditableBlock(db, userId, id, BuildingBlockErrors.RECOVER_NOT_FOUND);
  if (!block.archivedAt) throw new AppError(409, BuildingBlockErrors.RECOVER_NOT_ARCHIVED, { id });
  return saveChanges(db, userId, id, { archived: false }, BuildingBlockErrors.RECOVER_NOT_FOUND);
}

/** Marks or unmarks an active block for the polymer builder's draft. */
export async function setBuildingBlockDraft(
  db: Db,
  userId: string,
  id: string,
  draft: boolean,
): Promise<BuildingBlock> {
  const block = await findEditableBlock(db, userId, id, BuildingBlockErrors.UPDATE_NOT_FOUND);
  if (block.archivedAt) throw new AppError(409, BuildingBlockErrors.UPDATE_DRAFT_FAILED, { id });
  return saveChanges(db, userId, id, { draft }, BuildingBlockErrors.UPDATE_NOT_FOUND);
}
