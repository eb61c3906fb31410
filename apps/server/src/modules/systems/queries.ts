import type { SystemType } from "@polyforge/contracts/enums";
import type { MolecularSystemData } from "@polyforge/contracts/molecular-systems";
import { and, eq, lt, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../platform/db/database";
import { catalogueFilter } from "./repository";
import { type SystemRow, systems } from "./schema";

/**
 * The systems table as other modules reach it: the draft (polymer-builder-systems, polymers,
 * segments), a catalogue system (system-executions, molecular-systems), its engine job (the
 * processing runner) and the system_data of upload and SMILES systems (molecular-systems). Below
 * systems/service, which itself calls some of those modules, so that no import cycle forms.
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
