import type { SystemType } from "@polyforge/contracts/enums";
import type { MolecularSystemData } from "@polyforge/contracts/molecular-systems";
import { and, count, desc, eq, ilike, inArray, isNull, lt, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { Db } from "../../platform/db/database";
import { containing } from "../../platform/db/like";
import { type Page, pageOffset } from "../../platform/pagination";
import { type SystemRow, systems } from "./schema";

/**
 * The systems table, all of it for the modules above (the kernel has no routes of its own): the
 * draft's life (polymer-builder) and the draft that polymers and segments write to, a catalogue
 * system (system-executions, molecular-systems, projects), the catalogue's pages and archive
 * (catalogue), the engine job (the processing queue) and the system_data of upload and SMILES
 * systems (molecular-systems).
 */

export type { SystemRow };

/**
 * The caller's draft system, row-locked for the rest of the transaction when `lock` is set so
 * that writes to the draft from two tabs run one after the other (last write wins, no mix).
 */
export async function findDraftSystem(db: Db, ownerId: string, lock = false): Promise<SystemRow | undefined> {
  const query = db
    .select()
    .from(systems)
    .where(and(eq(systems.ownerId, ownerId), eq(systems.isDraft, true)));
  const [row] = lock ? await query.for("update") : await query;
  return row;
}

/** The caller's finished, not archived system (any origin), locked for update when asked. */
export async function findCatalogueSystem(
  db: Db,
  ownerId: string,
  id: string,
  lock = false,
): Promise<SystemRow | undefined> {
  const query = db
    .select()
    .from(systems)
    .where(and(eq(systems.id, id), catalogueFilter(ownerId)));
  const [row] = lock ? await query.for("update") : await query;
  return row;
}

export async function findSystemById(db: Db, id: string): Promise<SystemRow | undefined> {
  const [row] = await db.select().from(systems).where(eq(systems.id, id));
  return row;
}

/** The engine job frozen when the draft was finished; null for a system that has none. */
export async function engineJobOfSystem(db: Db, id: string): Promise<Record<string, unknown> | null> {
  const [row] = await db.select({ engineJob: systems.engineJob }).from(systems).where(eq(systems.id, id));
  return row?.engineJob ?? null;
}

/** A finished system made outside the polymer builder (an upload or a SMILES). */
export async function insertSystem(
  db: Db,
  ownerId: string,
  values: Pick<SystemRow, "name" | "sanitizedName" | "description" | "origin" | "systemData">,
): Promise<SystemRow> {
  const [row] = await db
    .insert(systems)
    .values({ ownerId, ...values, isDraft: false })
    .returning();
  return row!;
}

export interface DataCondition {
  /** The status the system must be in for the change to apply. */
  fromStatuses: readonly string[];
  /** …and the upload it must be on. */
  uploadId?: string;
}

/**
 * Writes system_data (and the type, when given) of an upload or SMILES system only if it is still
 * in one of the expected statuses: two racing calls cannot both move it. Answers the new row, or
 * undefined.
 */
export async function updateMolecularData(
  db: Db,
  id: string,
  data: MolecularSystemData,
  condition: DataCondition,
  type?: SystemType,
): Promise<SystemRow | undefined> {
  const conditions: SQL[] = [
    eq(systems.id, id),
    sql`${systems.systemData}->>'status' IN (${sql.join(
      condition.fromStatuses.map((status) => sql`${status}`),
      sql`, `,
    )})`,
  ];
  if (condition.uploadId !== undefined)
    conditions.push(sql`${systems.systemData}->>'upload_id' = ${condition.uploadId}`);
  const [row] = await db
    .update(systems)
    .set({ systemData: data, ...(type ? { type } : {}), updatedAt: sql`now()` })
    .where(and(...conditions))
    .returning();
  return row;
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
function catalogueFilter(ownerId: string, filters: CatalogueFilters = {}): SQL | undefined {
  return and(
    eq(systems.ownerId, ownerId),
    eq(systems.isDraft, false),
    isNull(systems.archivedAt),
    filters.ids ? (filters.ids.length > 0 ? inArray(systems.id, filters.ids) : sql`false`) : undefined,
    filters.type ? eq(systems.type, filters.type) : undefined,
    filters.name ? ilike(systems.name, containing(filters.name)) : undefined,
  );
}

/** What the page asks of other modules for each system, given the system's id column. */
export type RelatedOf<K extends string> = Record<K, (systemId: SQLWrapper) => SQL<unknown>>;

/** A catalogue system with what `related` asked of other modules for it. */
export interface CatalogueRow<K extends string> {
  system: SystemRow;
  related: Record<K, unknown>;
}

/**
 * `related`'s subqueries, each on the systems table's id column of the enclosing query. Each is
 * wrapped in one more sql`` so that its columns keep their table's name: in a select from one table
 * drizzle writes the columns at a selected expression's top level bare, which would turn
 * `potentials.system_id = systems.id` into `system_id = id`, both the subquery's own.
 */
function relatedColumnsOf<K extends string>(related: RelatedOf<K>): Record<K, SQL<unknown>> {
  return Object.fromEntries(
    Object.entries(related).map(([key, of]) => [key, sql`${(of as (id: SQLWrapper) => SQL<unknown>)(systems.id)}`]),
  ) as Record<K, SQL<unknown>>;
}

/**
 * A page of the catalogue, most recently modified first, with `related` of each row (other modules'
 * JSON subqueries), and how many match in total, in one statement (one turn on PGlite's
 * one connection). The page is chosen in a subquery that also counts the matches (count(*) over
 * ()), so the related subqueries run for the page's rows only. A page past the end has no row to
 * carry the count: only then is the count asked on its own.
 */
export async function findCataloguePage<K extends string>(
  db: Db,
  ownerId: string,
  filters: CatalogueFilters,
  page: Page,
  related: RelatedOf<K>,
): Promise<{ rows: CatalogueRow<K>[]; total: number }> {
  const where = catalogueFilter(ownerId, filters);
  const chosen = db
    .select({ id: systems.id, total: sql<number>`count(*) over ()`.as("total") })
    .from(systems)
    .where(where)
    .orderBy(desc(systems.updatedAt), desc(systems.id))
    .limit(page.page_size)
    .offset(pageOffset(page))
    .as("page");
  const rows = await db
    .select({ system: systems, total: chosen.total, related: relatedColumnsOf(related) })
    .from(systems)
    .innerJoin(chosen, eq(chosen.id, systems.id))
    .orderBy(desc(systems.updatedAt), desc(systems.id));
  if (rows.length > 0) {
    return {
      rows: rows.map((row) => ({ system: row.system, related: row.related as Record<K, unknown> })),
      total: Number(rows[0]!.total),
    };
  }
  if (pageOffset(page) === 0) return { rows: [], total: 0 };
  const [{ total } = { total: 0 }] = await db.select({ total: count() }).from(systems).where(where);
  return { rows: [], total };
}

/** The caller's catalogue system with `related` (the same subqueries as the page's), in one
 * statement; undefined for another user's, a draft or an archived system. */
export async function findCatalogueSystemWith<K extends string>(
  db: Db,
  ownerId: string,
  id: string,
  related: RelatedOf<K>,
): Promise<CatalogueRow<K> | undefined> {
  const [row] = await db
    .select({ system: systems, related: relatedColumnsOf(related) })
    .from(systems)
    .where(and(eq(systems.id, id), catalogueFilter(ownerId)));
  return row && { system: row.system, related: row.related as Record<K, unknown> };
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

/** Marks an upload system's upload active now (updated_at), while it is still that upload. */
export async function markUploadActive(db: Db, id: string, uploadId: string): Promise<void> {
  await db
    .update(systems)
    .set({ updatedAt: sql`now()` })
    .where(
      and(
        eq(systems.id, id),
        sql`${systems.systemData}->>'status' = 'uploading'`,
        sql`${systems.systemData}->>'upload_id' = ${uploadId}`,
      ),
    );
}

/** Upload systems (archived or not) whose upload was last marked active before `before`. */
export async function idleUploadingSystems(db: Db, before: Date): Promise<SystemRow[]> {
  return db
    .select()
    .from(systems)
    .where(
      and(
        eq(systems.origin, "upload"),
        sql`${systems.systemData}->>'status' = 'uploading'`,
        lt(systems.updatedAt, before),
      ),
    );
}
