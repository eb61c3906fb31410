import { PolymerErrors, SegmentErrors, SystemErrors } from "@polyforge/contracts/errors";
import {
  DEFAULT_TACTICITY,
  normalizePolymerForceField,
  type PolymerCreateBody,
  type PolymerPatchBody,
  type PolymerResponse,
  polymerBodyProblem,
  type polymerListQuery,
} from "@polyforge/contracts/polymers";
import { CREATABLE_SEGMENT_TYPES } from "@polyforge/contracts/segments";
import type { z } from "zod";
import type { AuthenticatedUser } from "../../platform/auth/user";
import type { Db } from "../../platform/db/database";
import { AppError, ruleError } from "../../platform/errors";
import { requireUuid } from "../../platform/ids";
import { listPage } from "../../platform/pagination";
import { segmentTypesInSystem } from "../segments/queries";
import { findDraftSystem } from "../systems/queries";
import { draftScope, requireDraftSystem } from "../systems/service";
import {
  deletePolymerRow,
  findPolymer,
  insertPolymer,
  listPolymers,
  type NewPolymer,
  polymerResponses,
  polymerSegmentRows,
  replacePolymer,
} from "./repository";
import type { PolymerRow } from "./schema";

type ListQuery = z.infer<typeof polymerListQuery>;

export async function listOwnPolymers(db: Db, user: AuthenticatedUser, query: ListQuery, draftOnly: boolean) {
  const scope = await draftScope(db, user.id, draftOnly);
  if (!scope) return listPage([], query, 0);
  const { rows, total } = await listPolymers(db, { ownerId: user.id, ...scope, name: query.name }, query);
  return listPage(await polymerResponses(db, rows), query, total);
}

export async function getPolymer(db: Db, user: AuthenticatedUser, id: string): Promise<PolymerResponse> {
  requireUuid(id, PolymerErrors.VALIDATE_ID_INVALID_FORMAT);
  const row = await findPolymer(db, user.id, id);
  if (!row) throw new AppError(404, PolymerErrors.GET_NOT_FOUND, { id });
  const [response] = await polymerResponses(db, [row]);
  return response!;
}

/** Checks the rules and that every segment is a linear segment of the same draft. */
async function validatedPolymer(
  db: Db,
  user: AuthenticatedUser,
  systemId: string,
  body: PolymerCreateBody,
): Promise<NewPolymer> {
  const problem = polymerBodyProblem(body, user.organization);
  if (problem) throw ruleError(problem);
  const ids = [...new Set(body.segments.map((s) => s.segment_id))];
  const types = await segmentTypesInSystem(db, systemId, ids);
  for (const id of ids) {
    const type = types.get(id);
    if (!type) throw new AppError(404, SegmentErrors.GET_NOT_FOUND, { id });
    // Only linear polymers can be built: a dendrimer segment has no place in one.
    if (!(CREATABLE_SEGMENT_TYPES as readonly string[]).includes(type)) {
      throw new AppError(400, PolymerErrors.VALIDATE_SEGMENT_ROLE, { segment_id: id, type });
    }
  }
  return {
    name: body.name,
    forceField: normalizePolymerForceField(body.force_field)!,
    segments: body.segments,
    tacticity: body.tacticity?.kind ?? DEFAULT_TACTICITY.kind,
    mesoFraction: body.tacticity?.meso_fraction ?? DEFAULT_TACTICITY.meso_fraction,
  };
}

export async function createPolymer(db: Db, user: AuthenticatedUser, body: PolymerCreateBody) {
  const row = await db.transaction(async (tx) => {
    const draft = await requireDraftSystem(tx, user.id, SystemErrors.GET_NOT_FOUND, true);
    const polymer = await validatedPolymer(tx, user, draft.id, body);
    return insertPolymer(tx, { ownerId: user.id, systemId: draft.id }, polymer);
  });
  const [response] = await polymerResponses(db, [row]);
  return response!;
}

async function lockDraftPolymer(
  tx: Db,
  user: AuthenticatedUser,
  id: string,
  notFoundCode: typeof PolymerErrors.UPDATE_NOT_FOUND | typeof PolymerErrors.DELETE_NOT_FOUND,
): Promise<PolymerRow> {
  const draft = await findDraftSystem(tx, user.id, true);
  const row = await findPolymer(tx, user.id, id, true);
  if (!draft || !row || row.systemId !== draft.id) throw new AppError(404, notFoundCode, { id });
  return row;
}

export async function updatePolymer(db: Db, user: AuthenticatedUser, id: string, patch: PolymerPatchBody) {
  requireUuid(id, PolymerErrors.VALIDATE_ID_INVALID_FORMAT);
  const row = await db.transaction(async (tx) => {
    const stored = await lockDraftPolymer(tx, user, id, PolymerErrors.UPDATE_NOT_FOUND);
    const storedSegments = await polymerSegmentRows(tx, id);
    const merged: PolymerCreateBody = {
      name: patch.name ?? stored.name,
      force_field: patch.force_field ?? stored.forceField,
      segments:
        patch.segments ??
        storedSegments.map((s) => ({ segment_id: s.segmentId, occurrence: s.occurrence, order: s.segmentOrder })),
      // A kind without a meso fraction keeps the stored one.
      tacticity: {
        kind: patch.tacticity?.kind ?? stored.tacticity,
        meso_fraction: patch.tacticity?.meso_fraction ?? stored.mesoFraction,
      },
    };
    const polymer = await validatedPolymer(tx, user, stored.systemId, merged);
    return replacePolymer(tx, id, polymer);
  });
  const [response] = await polymerResponses(db, [row]);
  return response!;
}

/** Deleting a polymer also takes it out of the draft's system setup. */
export async function deletePolymer(db: Db, user: AuthenticatedUser, id: string): Promise<void> {
  requireUuid(id, PolymerErrors.VALIDATE_ID_INVALID_FORMAT);
  await db.transaction(async (tx) => {
    await lockDraftPolymer(tx, user, id, PolymerErrors.DELETE_NOT_FOUND);
    await deletePolymerRow(tx, id);
  });
}
