import type { BlockType } from "@polyforge/contracts/enums";
import { BuildingBlockErrors, SegmentErrors, SystemErrors } from "@polyforge/contracts/errors";
import {
  type CreatableSegmentType,
  checkPeptideSequence,
  PEPTIDE_CAPPING_TYPE,
  SEGMENT_MESSAGES,
  type SegmentCreateBody,
  type SegmentPatchBody,
  type SegmentResponse,
  segmentBodyProblem,
  segmentCreateBody,
  type segmentListQuery,
} from "@polyforge/contracts/segments";
import type { z } from "zod";
import type { AuthenticatedUser } from "../../platform/auth/user";
import type { Db } from "../../platform/db/database";
import { isUniqueViolation } from "../../platform/db/errors";
import { AppError, ruleError, validationError } from "../../platform/errors";
import { requireUuid } from "../../platform/ids";
import { listPage } from "../../platform/pagination";
import { type UsageCheck, UsageChecks } from "../../platform/usage-checks";
import { aminoacidBlocks, usableBlocks } from "../building-blocks/queries";
import { findDraftSystem } from "../systems/queries";
import { draftScope, requireDraftSystem } from "../systems/service";
import {
  blockUsedBySegment,
  deleteSegment as deleteSegmentRow,
  findSegment,
  insertSegment,
  listSegments,
  type NewSegment,
  nameTakenInSystem,
  replaceSegment,
  segmentBlockRows,
  segmentResponses,
} from "./repository";
import type { SegmentRow } from "./schema";

type ListQuery = z.infer<typeof segmentListQuery>;

/** Whether something built from a segment (a polymer) uses it: a used segment cannot be deleted
 * (modules/wiring.ts registers the polymers module's check). */
const segmentUsage = new UsageChecks();

export function onSegmentUsageCheck(check: UsageCheck): void {
  segmentUsage.register(check);
}

/** The block type each segment type is made of. */
const BLOCK_TYPE_OF_SEGMENT: Record<CreatableSegmentType, BlockType> = {
  linear_block: "linear",
  linear_random: "linear",
  linear_peptide: "aminoacid",
};

export async function listOwnSegments(db: Db, user: AuthenticatedUser, query: ListQuery, draftOnly: boolean) {
  const scope = await draftScope(db, user.id, draftOnly);
  if (!scope) return listPage([], query, 0);
  const { rows, total } = await listSegments(
    db,
    { ownerId: user.id, ...scope, name: query.name, types: query.type },
    query,
  );
  return listPage(await segmentResponses(db, rows), query, total);
}

export async function getSegment(db: Db, user: AuthenticatedUser, id: string): Promise<SegmentResponse> {
  requireUuid(id, SegmentErrors.VALIDATE_INVALID_ID_FORMAT);
  const row = await findSegment(db, user.id, id);
  if (!row) throw new AppError(404, SegmentErrors.GET_NOT_FOUND, { id });
  const [response] = await segmentResponses(db, [row]);
  return response!;
}

/**
 * Checks a body against every segment rule (SPEC §5/§8) and the blocks it names, and returns what
 * to store: only the data fields that belong to its type.
 */
async function validatedSegment(db: Db, user: AuthenticatedUser, body: SegmentCreateBody): Promise<NewSegment> {
  const problem = segmentBodyProblem(body);
  if (problem) throw ruleError(problem);
  const type = body.type as CreatableSegmentType;

  const ids = [...new Set(body.blocks.map((b) => b.building_block_id))];
  const blocks = new Map((await usableBlocks(db, user.id, ids)).map((b) => [b.id, b]));
  for (const id of ids) {
    const block = blocks.get(id);
    if (!block) throw new AppError(404, BuildingBlockErrors.GET_NOT_FOUND, { id });
    if (block.type !== BLOCK_TYPE_OF_SEGMENT[type]) {
      throw new AppError(400, SegmentErrors.VALIDATE_INVALID_TYPE, { building_block_id: id, block_type: block.type });
    }
  }

  const base = { name: body.name, type, blocks: body.blocks };
  const total = body.data.total_building_blocks;
  if (type === "linear_block") return { ...base, data: { total_building_blocks: total } };
  if (type === "linear_random") {
    return {
      ...base,
      data: { total_building_blocks: total, multiplier: body.data.multiplier ?? total / sumOfRatios(body) },
    };
  }

  // A peptide's blocks are its sequence's aminoacids, in order.
  const { sequence, sequence_naming: naming } = body.data;
  if (!sequence) throw validationError("data.sequence", SEGMENT_MESSAGES.SEQUENCE_REQUIRED);
  if (!naming) throw validationError("data.sequence_naming", SEGMENT_MESSAGES.SEQUENCE_REQUIRED);
  const aminoacids = (await aminoacidBlocks(db)).map((a) => ({
    id: a.id,
    one_letter_code: a.data.one_letter_code ?? "",
    three_letter_code: a.data.three_letter_code ?? "",
  }));
  const check = checkPeptideSequence(sequence, naming, aminoacids);
  if (!check.ok) throw validationError("data.sequence", check.message);
  const sent = [...body.blocks]
    .sort((a, b) => a.order - b.order)
    .flatMap((b) => Array<string>(b.occurrence ?? 0).fill(b.building_block_id));
  const expected = check.residues.map((r) => r.id);
  if (sent.length !== expected.length || sent.some((id, i) => id !== expected[i])) {
    throw validationError("blocks", SEGMENT_MESSAGES.BLOCKS_DO_NOT_MATCH_SEQUENCE);
  }
  return {
    ...base,
    data: { total_building_blocks: total, capping_type: PEPTIDE_CAPPING_TYPE, sequence, sequence_naming: naming },
  };
}

function sumOfRatios(body: SegmentCreateBody): number {
  return body.blocks.reduce((sum, b) => sum + (b.ratio ?? 0), 0);
}

async function ensureNameFree(db: Db, systemId: string, name: string, exceptId?: string): Promise<void> {
  if (await nameTakenInSystem(db, systemId, name, exceptId)) {
    throw new AppError(409, SegmentErrors.VALIDATE_NAME_NOT_UNIQUE, { name });
  }
}

/** Writes through the draft's row lock; a name taken by a concurrent write still answers its code. */
async function withNameGuard<T>(name: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError(409, SegmentErrors.VALIDATE_NAME_NOT_UNIQUE, { name });
    throw error;
  }
}

export async function createSegment(db: Db, user: AuthenticatedUser, body: SegmentCreateBody) {
  const segment = await validatedSegment(db, user, body);
  const row = await withNameGuard(segment.name, () =>
    db.transaction(async (tx) => {
      const draft = await requireDraftSystem(tx, user.id, SystemErrors.GET_NOT_FOUND, true);
      await ensureNameFree(tx, draft.id, segment.name);
      return insertSegment(tx, { ownerId: user.id, systemId: draft.id }, segment);
    }),
  );
  const [response] = await segmentResponses(db, [row]);
  return response!;
}

/** A segment of the caller's draft, locked; segments of finished systems are frozen. */
async function lockDraftSegment(
  tx: Db,
  user: AuthenticatedUser,
  id: string,
  notFoundCode: typeof SegmentErrors.UPDATE_NOT_FOUND | typeof SegmentErrors.DELETE_NOT_FOUND,
): Promise<SegmentRow> {
  const draft = await findDraftSystem(tx, user.id, true);
  const row = await findSegment(tx, user.id, id, true);
  if (!draft || !row || row.systemId !== draft.id) throw new AppError(404, notFoundCode, { id });
  return row;
}

/** PATCH: the sent fields replace the stored ones; the result must pass every rule. */
export async function updateSegment(db: Db, user: AuthenticatedUser, id: string, patch: SegmentPatchBody) {
  requireUuid(id, SegmentErrors.VALIDATE_INVALID_ID_FORMAT);
  const row = await withNameGuard(patch.name ?? "", () =>
    db.transaction(async (tx) => {
      const stored = await lockDraftSegment(tx, user, id, SegmentErrors.UPDATE_NOT_FOUND);
      const storedBlocks = await segmentBlockRows(tx, id);
      const merged = segmentCreateBody.safeParse({
        name: patch.name ?? stored.name,
        type: patch.type ?? stored.type,
        data: patch.data ?? stored.data,
        blocks:
          patch.blocks ??
          storedBlocks.map((b) => ({
            building_block_id: b.buildingBlockId,
            order: b.blockOrder,
            occurrence: b.occurrence ?? undefined,
            ratio: b.ratio ?? undefined,
          })),
      });
      if (!merged.success) {
        const issue = merged.error.issues[0]!;
        throw validationError(issue.path.join(".") || "body", issue.message);
      }
      const segment = await validatedSegment(tx, user, merged.data);
      await ensureNameFree(tx, stored.systemId, segment.name, id);
      return replaceSegment(tx, id, segment);
    }),
  );
  const [response] = await segmentResponses(db, [row]);
  return response!;
}

export async function deleteSegment(db: Db, user: AuthenticatedUser, id: string): Promise<void> {
  requireUuid(id, SegmentErrors.VALIDATE_INVALID_ID_FORMAT);
  await db.transaction(async (tx) => {
    await lockDraftSegment(tx, user, id, SegmentErrors.DELETE_NOT_FOUND);
    if (await segmentUsage.isUsed(tx, id)) throw new AppError(409, SegmentErrors.DELETE_IN_USE, { id });
    await deleteSegmentRow(tx, id);
  });
}

/** True when any segment uses the building block: its chemistry is then fixed (BUILDING_BLOCK UPDATE IN_USE). */
export async function isBlockUsedBySegment(db: Db, buildingBlockId: string): Promise<boolean> {
  return blockUsedBySegment(db, buildingBlockId);
}
