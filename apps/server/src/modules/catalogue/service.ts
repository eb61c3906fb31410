import { SystemErrors } from "@polyforge/contracts/errors";
import type { ListResponse } from "@polyforge/contracts/pagination";
import type { SystemWithExecutions } from "@polyforge/contracts/system-executions";
import type { AuthenticatedUser } from "../../platform/auth/user";
import type { Db } from "../../platform/db/database";
import { AppError } from "../../platform/errors";
import { requireUuid } from "../../platform/ids";
import { listPage, type Page } from "../../platform/pagination";
import type { StoredUpload } from "../../platform/storage/multipart";
import { endUploadOfSystem } from "../molecular-systems/service";
import {
  cancelGenerationsOfSystem,
  endTopologyUploadsOfSystem,
  potentialSummariesFromJson,
  potentialSummariesJsonOf,
} from "../potentials/service";
import { cancelActiveExecution, executionsFromJson, executionsJsonOf } from "../system-executions/service";
import {
  type CatalogueFilters,
  type CatalogueRow,
  findCataloguePage,
  findCatalogueSystemWith,
  markArchived,
} from "../systems/queries";
import { systemResponse } from "../systems/service";

/**
 * The catalogue: the caller's finished systems as the list and the detail page show them, each with
 * what the modules below say of it (its potentials, its executions), and their archive. It is the
 * top floor: only app.ts registers it, nothing imports it.
 */

/** What the catalogue and the detail page ask of other modules for each system, in the system's
 * own statement (one turn on PGlite's one connection). */
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
 * its executions in one statement (systems/queries.ts). */
export async function listSystems(
  db: Db,
  user: AuthenticatedUser,
  filters: CatalogueFilters,
  page: Page,
): Promise<ListResponse<SystemWithExecutions>> {
  const { rows, total } = await findCataloguePage(db, user.id, filters, page, RELATED);
  return listPage(rows.map(withExecutions), page, total);
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
