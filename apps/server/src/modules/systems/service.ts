import { SystemErrors } from "@polyforge/contracts/errors";
import type { JobLimits } from "@polyforge/contracts/job-limits";
import type { ListResponse } from "@polyforge/contracts/pagination";
import type { SystemWithExecutions } from "@polyforge/contracts/system-executions";
import { type FinishDraftBody, type SystemResponse, sanitizeSystemName } from "@polyforge/contracts/systems";
import type { AuthenticatedUser } from "../../platform/auth/user";
import type { Db } from "../../platform/db/database";
import { isUniqueViolation } from "../../platform/db/errors";
import { AppError } from "../../platform/errors";
import { requireUuid } from "../../platform/ids";
import { listPage, type Page } from "../../platform/pagination";
import type { StoredUpload } from "../../platform/storage/multipart";
import { endDraftBlocks } from "../building-blocks/queries";
import { endUploadOfSystem } from "../molecular-systems/service";
import { createDraftSettings } from "../polymer-builder-systems/service";
import {
  cancelGenerationsOfSystem,
  endTopologyUploadsOfSystem,
  potentialSummariesFromJson,
  potentialSummariesJsonOf,
} from "../potentials/service";
import { cancelActiveExecution, executionsFromJson, executionsJsonOf } from "../system-executions/service";
import { findDraftSystem } from "./queries";
import {
  type CatalogueFilters,
  type CatalogueRow,
  deleteDraftSystem,
  findCatalogueIds,
  findCataloguePage,
  findCatalogueSystemWith,
  insertDraftSystem,
  markArchived,
  markFinished,
  systemResponse,
} from "./repository";
import { freezeDraft } from "./snapshot";

/** POST /systems/draft: a user has at most one draft (a unique index guards concurrent calls). */
export async function createDraft(db: Db, user: AuthenticatedUser): Promise<SystemResponse> {
  try {
    const row = await db.transaction(async (tx) => {
      if (await findDraftSystem(tx, user.id)) throw existingDraft();
      const draft = await insertDraftSystem(tx, user.id);
      await createDraftSettings(tx, user.id, draft.id);
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
    await endDraftBlocks(tx, user.id);
  });
}

/** PATCH /systems/{id}/draft with a name and is_draft=false: freezes the engine job, sets the type
 * (ARCHITECTURE §5) and leaves the user without a draft. */
export async function finishDraft(
  db: Db,
  user: AuthenticatedUser,
  id: string,
  body: FinishDraftBody,
  limits?: JobLimits,
): Promise<SystemResponse> {
  requireUuid(id, SystemErrors.VALIDATE_INVALID_ID);
  const row = await db.transaction(async (tx) => {
    const draft = await findDraftSystem(tx, user.id, true);
    if (!draft || draft.id !== id) throw new AppError(404, SystemErrors.UPDATE_NOT_FOUND, { id });
    const sanitizedName = sanitizeSystemName(body.name);
    const frozen = await freezeDraft(tx, draft, body.name, sanitizedName, limits);
    const finished = await markFinished(tx, draft.id, {
      name: body.name,
      sanitizedName,
      type: frozen.type,
      systemData: frozen.systemData,
      engineJob: frozen.engineJob,
    });
    await endDraftBlocks(tx, user.id);
    return finished;
  });
  return systemResponse(row);
}

/** What the catalogue and the detail page ask of other modules for each system, in the system's
 * own statement (issue 27: one turn on PGlite's one connection). */
const RELATED = { potentials: potentialSummariesJsonOf, executions: executionsJsonOf };

/** A system as the catalogue and the detail page show it: with its potentials and its executions,
 * oldest first. */
function withExecutions({ system, related }: CatalogueRow<keyof typeof RELATED>): SystemWithExecutions {
  return {
    ...systemResponse(system),
    potentials: potentialSummariesFromJson(related.potentials),
    system_executions: executionsFromJson(related.executions),
  };
}

/** GET /systems: the caller's catalogue, filtered by type and name: the page, its potentials and
 * its executions in one statement (repository.ts). */
export async function listSystems(
  db: Db,
  user: AuthenticatedUser,
  filters: CatalogueFilters,
  page: Page,
): Promise<ListResponse<SystemWithExecutions>> {
  const { rows, total } = await findCataloguePage(db, user.id, filters, page, RELATED);
  return listPage(rows.map(withExecutions), page, total);
}

/** Of these ids, those of systems in the caller's catalogue (for the projects module). */
export async function catalogueSystemIds(db: Db, user: AuthenticatedUser, ids: string[]): Promise<string[]> {
  return findCatalogueIds(db, user.id, ids);
}

/** GET /systems/{id}: another user's, a draft or an archived system answers 404. */
export async function getSystem(db: Db, user: AuthenticatedUser, id: string): Promise<SystemWithExecutions> {
  requireUuid(id, SystemErrors.VALIDATE_INVALID_ID);
  const row = await findCatalogueSystemWith(db, user.id, id, RELATED);
  if (!row) throw new AppError(404, SystemErrors.GET_NOT_FOUND, { id });
  return withExecutions(row);
}

/** DELETE /systems/{id}: archives the system and cancels its processing and its potentials'
 * generations, if any, and ends its uploads in progress (its file's, its potentials' .top). Answers
 * the ids of what was cancelled so that the runners holding them can stop their engines, and the
 * uploads for the store to abort. */
export async function archiveSystem(
  db: Db,
  user: AuthenticatedUser,
  id: string,
): Promise<{ execution: string | undefined; potentials: string[]; uploads: StoredUpload[] }> {
  requireUuid(id, SystemErrors.VALIDATE_INVALID_ID);
  return db.transaction(async (tx) => {
    const archived = await markArchived(tx, user.id, id);
    if (!archived) throw new AppError(404, SystemErrors.DELETE_NOT_FOUND, { id });
    const execution = await cancelActiveExecution(tx, id);
    const potentials = await cancelGenerationsOfSystem(tx, id);
    const upload = await endUploadOfSystem(tx, archived);
    const uploads = [...(upload ? [upload] : []), ...(await endTopologyUploadsOfSystem(tx, id))];
    return { execution, potentials, uploads };
  });
}
