import { and, asc, eq, inArray } from "drizzle-orm";
import type { Db } from "../../platform/db/database";
import { type PolymerRow, type PolymerSegmentRow, polymerSegments, polymers } from "./schema";

/**
 * The polymers tables as other modules reach them (they never query them themselves): the system
 * setup places a draft's polymers, the systems module freezes them into the engine job, and a
 * segment used by a polymer cannot be deleted.
 */

/** These polymers, in no particular order. */
export async function polymersByIds(db: Db, ids: string[]): Promise<PolymerRow[]> {
  if (ids.length === 0) return [];
  return db.select().from(polymers).where(inArray(polymers.id, ids));
}

/** The segments of these polymers, each polymer's in order. */
export async function segmentsOfPolymers(db: Db, polymerIds: string[]): Promise<PolymerSegmentRow[]> {
  if (polymerIds.length === 0) return [];
  return db
    .select()
    .from(polymerSegments)
    .where(inArray(polymerSegments.polymerId, polymerIds))
    .orderBy(asc(polymerSegments.segmentOrder));
}

/** Of these polymer ids, the ones that belong to the system. */
export async function polymerIdsInSystem(db: Db, systemId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .select({ id: polymers.id })
    .from(polymers)
    .where(and(eq(polymers.systemId, systemId), inArray(polymers.id, ids)));
  return new Set(rows.map((r) => r.id));
}

/** True when a polymer uses the segment (SEGMENT DELETE IN_USE). */
export async function isSegmentUsedByPolymer(db: Db, segmentId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: polymerSegments.id })
    .from(polymerSegments)
    .where(eq(polymerSegments.segmentId, segmentId))
    .limit(1);
  return row !== undefined;
}
