import { type ErrorCode, ProjectErrors } from "@polyforge/contracts/errors";
import type { ListResponse } from "@polyforge/contracts/pagination";
import type {
  Project,
  projectBody,
  projectListQuery,
  projectPatchBody,
  projectSystemParams,
} from "@polyforge/contracts/projects";
import type { z } from "zod";
import type { AuthenticatedUser } from "../../platform/auth/user";
import type { Db } from "../../platform/db/database";
import { isUniqueViolation } from "../../platform/db/errors";
import { AppError } from "../../platform/errors";
import { requireUuid } from "../../platform/ids";
import { listPage } from "../../platform/pagination";
import { catalogueSystemIds, requireCatalogueSystem } from "../systems/service";
import {
  deleteProjectRow,
  fileSystem,
  findProject,
  findProjectPage,
  insertProject,
  systemIdsOfProjects,
  touchProject,
  unfileSystem,
  updateProjectRow,
} from "./repository";
import type { ProjectRow } from "./schema";

type ListQuery = z.output<typeof projectListQuery>;
type CreateBody = z.output<typeof projectBody>;
type PatchBody = z.output<typeof projectPatchBody>;
/** A project and one of the caller's systems (the path of the filing routes). */
type Filing = z.output<typeof projectSystemParams>;

/** The projects with the ids of their systems still in the catalogue (archived ones are left out). */
async function projectResponses(db: Db, user: AuthenticatedUser, rows: ProjectRow[]): Promise<Project[]> {
  const filed = await systemIdsOfProjects(
    db,
    rows.map((row) => row.id),
  );
  const active = new Set(await catalogueSystemIds(db, user, [...filed.values()].flat()));
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    description: row.description,
    system_ids: (filed.get(row.id) ?? []).filter((id) => active.has(id)),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  }));
}

async function oneResponse(db: Db, user: AuthenticatedUser, row: ProjectRow): Promise<Project> {
  const [response] = await projectResponses(db, user, [row]);
  return response!;
}

function nameTaken(name: string | undefined): AppError {
  return new AppError(409, ProjectErrors.VALIDATE_NAME_NOT_UNIQUE, { name });
}

/** The caller's project, or 404 with the action's code (another user's id included). */
async function ownProject(db: Db, user: AuthenticatedUser, id: string, notFound: ErrorCode): Promise<ProjectRow> {
  requireUuid(id, ProjectErrors.VALIDATE_INVALID_ID);
  const row = await findProject(db, user.id, id);
  if (!row) throw new AppError(404, notFound, { id });
  return row;
}

export async function listProjects(db: Db, user: AuthenticatedUser, query: ListQuery): Promise<ListResponse<Project>> {
  const { rows, total } = await findProjectPage(
    db,
    user.id,
    { name: query.name, description: query.description },
    query,
  );
  return listPage(await projectResponses(db, user, rows), query, total);
}

export async function getProject(db: Db, user: AuthenticatedUser, id: string): Promise<Project> {
  return oneResponse(db, user, await ownProject(db, user, id, ProjectErrors.GET_NOT_FOUND));
}

/** The ids of the caller's systems filed under the project (the systems catalogue's project filter). */
export async function systemIdsInProject(db: Db, user: AuthenticatedUser, id: string): Promise<string[]> {
  const row = await ownProject(db, user, id, ProjectErrors.GET_NOT_FOUND);
  return (await systemIdsOfProjects(db, [row.id])).get(row.id) ?? [];
}

/** POST /projects. A second project of the same name (in any case) is refused: it is also what
 * keeps a double submit from making two. */
export async function createProject(db: Db, user: AuthenticatedUser, body: CreateBody): Promise<Project> {
  try {
    return await oneResponse(db, user, await insertProject(db, user.id, body));
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken(body.name);
    throw error;
  }
}

export async function updateProject(db: Db, user: AuthenticatedUser, id: string, body: PatchBody): Promise<Project> {
  await ownProject(db, user, id, ProjectErrors.UPDATE_NOT_FOUND);
  try {
    const row = await updateProjectRow(db, user.id, id, body);
    if (!row) throw new AppError(404, ProjectErrors.UPDATE_NOT_FOUND, { id });
    return await oneResponse(db, user, row);
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken(body.name);
    throw error;
  }
}

/** DELETE /projects/{id}: the project goes; its systems stay in the catalogue, unfiled. */
export async function deleteProject(db: Db, user: AuthenticatedUser, id: string): Promise<void> {
  requireUuid(id, ProjectErrors.VALIDATE_INVALID_ID);
  if (!(await deleteProjectRow(db, user.id, id))) throw new AppError(404, ProjectErrors.DELETE_NOT_FOUND, { id });
}

/** PUT /projects/{id}/systems/{systemId}: files one of the caller's systems under the project
 * (moving it from another project). Another user's system answers SYSTEM.GET.NOT_FOUND. */
export async function addSystemToProject(db: Db, user: AuthenticatedUser, filing: Filing): Promise<Project> {
  const project = await ownProject(db, user, filing.id, ProjectErrors.UPDATE_NOT_FOUND);
  await requireCatalogueSystem(db, user, filing.systemId);
  await fileSystem(db, project.id, filing.systemId);
  await touchProject(db, project.id);
  return getProject(db, user, filing.id);
}

/** DELETE /projects/{id}/systems/{systemId}: takes the system out of the project (it stays). */
export async function removeSystemFromProject(db: Db, user: AuthenticatedUser, filing: Filing): Promise<Project> {
  const project = await ownProject(db, user, filing.id, ProjectErrors.UPDATE_NOT_FOUND);
  requireUuid(filing.systemId, ProjectErrors.VALIDATE_INVALID_ID);
  if (await unfileSystem(db, project.id, filing.systemId)) await touchProject(db, project.id);
  return getProject(db, user, filing.id);
}
