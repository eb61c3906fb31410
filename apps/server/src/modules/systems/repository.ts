import type { SystemType } from "@polyforge/contracts/enums";
import type { SystemResponse } from "@polyforge/contracts/systems";
import { and, count, desc, eq, ilike, inArray, isNull, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../platform/db/database";
import { containing } from "../../platform/db/like";
import { type Page, pageOffset } from "../../platform/pagination";
import { type SystemRow, systems } from "./schema";

export function systemResponse(row: SystemRow): SystemResponse {
  return {
    id: row.id,
    name: row.name,
    sanitized_name: row.sanitizedName,
    description: row.description,
    origin: row.origin,
    type: row.type,
    is_draft: row.isDraft,
    system_data: row.systemData,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export async function insertDraftSystem(tx: Db, ownerId: string): Promise<SystemRow> {
  const [row] = await tx.insert(systems).values({ ownerId, origin: "polymer_builder", isDraft: true }).returning();
  return row!;
}

/** Deletes the caller's draft and, through the foreign keys, its segments, polymers, setup and
 * protocol. Returns the deleted row, if there was one. */
export async function deleteDraftSystem(tx: Db, ownerId: string): Promise<SystemRow | undefined> {
  const [row] = await tx
    .delete(systems)
    .where(and(eq(systems.ownerId, ownerId), eq(systems.isDraft, true)))
    .returning();
  return row;
}

export async function markFinished(
  tx: Db,
  id: string,
  values: Pick<SystemRow, "name" | "sanitizedName" | "type" | "systemData" | "engineJob">,
): Promise<SystemRow> {
  const [row] = await tx
    .update(systems)
    .set({ ...values, isDraft: false, updatedAt: new Date() })
    .where(eq(systems.id, id))
    .returning();
  return row!;
}

/** Catalogue filters; `ids` narrows to those systems (a project's, asked of the projects module). */
export interface CatalogueFilters {
  type?: SystemType;
  name?: string;
  ids?: string[];
}

/** The caller's finished, not archived systems (the catalogue). */
export function catalogueFilter(ownerId: string, filters: CatalogueFilters = {}): SQL | undefined {
  return and(
    eq(systems.ownerId, ownerId),
    eq(systems.isDraft, false),
    isNull(systems.archivedAt),
    filters.ids ? (filters.ids.length > 0 ? inArray(systems.id, filters.ids) : sql`false`) : undefined,
    filters.type ? eq(systems.type, filters.type) : undefined,
    filters.name ? ilike(systems.name, containing(filters.name)) : undefined,
  );
}

/** A page of the catalogue, most recently modified first, and how many match in total. */
export async function findCataloguePage(
  db: Db,
  ownerId: string,
  filters: CatalogueFilters,
  page: Page,
): Promise<{ rows: SystemRow[]; total: number }> {
  const where = catalogueFilter(ownerId, filters);
  // Both asked at once: on PGlite's one connection they queue together rather than one after the
  // other behind every other request's queries (issue 27).
  const [[{ total } = { total: 0 }], rows] = await Promise.all([
    db.select({ total: count() }).from(systems).where(where),
    db
      .select()
      .from(systems)
      .where(where)
      .orderBy(desc(systems.updatedAt), desc(systems.id))
      .limit(page.page_size)
      .offset(pageOffset(page)),
  ]);
  return { rows, total };
}

/** Of these ids, those of the caller's catalogue systems. */
export async function findCatalogueIds(db: Db, ownerId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db.select({ id: systems.id }).from(systems).where(catalogueFilter(ownerId, { ids }));
  return rows.map((row) => row.id);
}

/** Soft delete (ARCHITECTURE §3). */
export async function markArchived(db: Db, ownerId: string, id: string): Promise<SystemRow | undefined> {
  const [row] = await db
    .update(systems)
    .set({ archivedAt: new Date() })
    .where(and(eq(systems.id, id), catalogueFilter(ownerId)))
    .returning();
  return row;
}
