import { and, asc, count, desc, eq, ilike, inArray, type SQL } from "drizzle-orm";
import type { Db } from "../../platform/db/database";
import { containing } from "../../platform/db/like";
import { type Page, pageOffset } from "../../platform/pagination";
import { type ProjectRow, projectSystems, projects } from "./schema";

/** A page of the owner's projects, most recently changed first, and how many match in total. */
export async function findProjectPage(
  db: Db,
  ownerId: string,
  filters: { name?: string; description?: string },
  page: Page,
): Promise<{ rows: ProjectRow[]; total: number }> {
  const where: SQL | undefined = and(
    eq(projects.ownerId, ownerId),
    filters.name ? ilike(projects.name, containing(filters.name)) : undefined,
    filters.description ? ilike(projects.description, containing(filters.description)) : undefined,
  );
  const [{ total } = { total: 0 }] = await db.select({ total: count() }).from(projects).where(where);
  const rows = await db
    .select()
    .from(projects)
    .where(where)
    .orderBy(desc(projects.updatedAt), desc(projects.id))
    .limit(page.page_size)
    .offset(pageOffset(page));
  return { rows, total };
}

export async function findProject(db: Db, ownerId: string, id: string): Promise<ProjectRow | undefined> {
  const [row] = await db
    .select()
    .from(projects)
    .where(and(eq(projects.id, id), eq(projects.ownerId, ownerId)));
  return row;
}

export async function insertProject(
  db: Db,
  ownerId: string,
  values: { name: string; description: string | null },
): Promise<ProjectRow> {
  const [row] = await db
    .insert(projects)
    .values({ ownerId, ...values })
    .returning();
  return row!;
}

export async function updateProjectRow(
  db: Db,
  ownerId: string,
  id: string,
  values: { name?: string; description?: string | null },
): Promise<ProjectRow | undefined> {
  const [row] = await db
    .update(projects)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(projects.id, id), eq(projects.ownerId, ownerId)))
    .returning();
  return row;
}

/** Deletes the project and its filing rows (cascade); the systems themselves stay. */
export async function deleteProjectRow(db: Db, ownerId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(projects)
    .where(and(eq(projects.id, id), eq(projects.ownerId, ownerId)))
    .returning({ id: projects.id });
  return rows.length > 0;
}

/** project id → the ids of the systems filed under it, oldest filing first. */
export async function systemIdsOfProjects(db: Db, projectIds: string[]): Promise<Map<string, string[]>> {
  const byProject = new Map<string, string[]>(projectIds.map((id) => [id, []]));
  if (projectIds.length === 0) return byProject;
  const rows = await db
    .select({ projectId: projectSystems.projectId, systemId: projectSystems.systemId })
    .from(projectSystems)
    .where(inArray(projectSystems.projectId, projectIds))
    .orderBy(asc(projectSystems.createdAt), asc(projectSystems.systemId));
  for (const row of rows) byProject.get(row.projectId)?.push(row.systemId);
  return byProject;
}

/** Files the system under the project, moving it out of any other. */
export async function fileSystem(db: Db, projectId: string, systemId: string): Promise<void> {
  await db
    .insert(projectSystems)
    .values({ projectId, systemId })
    .onConflictDoUpdate({ target: projectSystems.systemId, set: { projectId, createdAt: new Date() } });
}

export async function unfileSystem(db: Db, projectId: string, systemId: string): Promise<boolean> {
  const rows = await db
    .delete(projectSystems)
    .where(and(eq(projectSystems.projectId, projectId), eq(projectSystems.systemId, systemId)))
    .returning({ systemId: projectSystems.systemId });
  return rows.length > 0;
}

export async function touchProject(db: Db, id: string): Promise<void> {
  await db.update(projects).set({ updatedAt: new Date() }).where(eq(projects.id, id));
}
