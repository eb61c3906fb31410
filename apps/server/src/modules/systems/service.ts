import { SystemErrors } from "@polyforge/contracts/errors";
import { type FinishDraftBody, type SystemResponse, sanitizeSystemName } from "@polyforge/contracts/systems";
import type { AuthenticatedUser } from "../../platform/auth/user";
import type { Db } from "../../platform/db/database";
import { AppError } from "../../platform/errors";
import { findDraftSystem, isUniqueViolation, requireUuid } from "../polymer-builder-systems/draft";
import { insertDraftSettings } from "../polymer-builder-systems/repository";
import { clearDraftBlocks, deleteDraftSystem, insertDraftSystem, markFinished, systemResponse } from "./repository";
import { freezeDraft } from "./snapshot";

/** POST /systems/draft: a user has at most one draft (a unique index guards concurrent calls). */
export async function createDraft(db: Db, user: AuthenticatedUser): Promise<SystemResponse> {
  try {
    const row = await db.transaction(async (tx) => {
      if (await findDraftSystem(tx, user.id)) throw existingDraft();
      const draft = await insertDraftSystem(tx, user.id);
      await insertDraftSettings(tx, user.id, draft.id);
      return draft;
    });
    return systemResponse(row);
  } catch (error) {
    if (isUniqueViolation(error)) throw existingDraft();
    throw error;
  }
}

function existingDraft(): AppError {
  return new AppError(409, SystemErrors.CREATE_DRAFT_EXISTING_DRAFT);
}

export async function getDraft(db: Db, user: AuthenticatedUser): Promise<SystemResponse> {
  const draft = await findDraftSystem(db, user.id);
  if (!draft) throw new AppError(404, SystemErrors.GET_NOT_FOUND, { draft: true });
  return systemResponse(draft);
}

/** DELETE /systems/draft: the draft and everything in it go; its blocks stop being draft blocks. */
export async function deleteDraft(db: Db, user: AuthenticatedUser): Promise<void> {
  await db.transaction(async (tx) => {
    const deleted = await deleteDraftSystem(tx, user.id);
    if (!deleted) throw new AppError(404, SystemErrors.DELETE_NOT_FOUND, { draft: true });
    await clearDraftBlocks(tx, user.id);
  });
}

/** PATCH /systems/{id}/draft with a name and is_draft=false: freezes the engine job, sets the type
 * (ARCHITECTURE §5) and leaves the user without a draft. */
export async function finishDraft(
  db: Db,
  user: AuthenticatedUser,
  id: string,
  body: FinishDraftBody,
): Promise<SystemResponse> {
  requireUuid(id, SystemErrors.VALIDATE_INVALID_ID);
  const row = await db.transaction(async (tx) => {
    const draft = await findDraftSystem(tx, user.id, true);
    if (!draft || draft.id !== id) throw new AppError(404, SystemErrors.UPDATE_NOT_FOUND, { id });
    const sanitizedName = sanitizeSystemName(body.name);
    const frozen = await freezeDraft(tx, draft, body.name, sanitizedName);
    const finished = await markFinished(tx, draft.id, {
      name: body.name,
      sanitizedName,
      type: frozen.type,
      systemData: frozen.systemData,
      engineJob: frozen.engineJob,
    });
    await clearDraftBlocks(tx, user.id);
    return finished;
  });
  return systemResponse(row);
}
