import { and, asc, eq, inArray } from "drizzle-orm";
import type { Db } from "../../platform/db/database";
import { type SegmentBlockRow, type SegmentRow, segmentBlocks, segments } from "./schema";

/**
 * The segments tables as other modules reach them (they never query them themselves): polymers
 * check and show the segments they are made of, the systems module freezes them into the engine job.
 */

/** These segments, in no particular order. */
export async function segmentsByIds(db: Db, ids: string[]): Promise<SegmentRow[]> {
  if (ids.length === 0) return [];
  return db.select().from(segments).where(inArray(segments.id, ids));
}

/** The blocks of these segments, each segment's in order. */
export async function blocksOfSegments(db: Db, segmentIds: string[]): Promise<SegmentBlockRow[]> {
  if (segmentIds.length === 0) return [];
  return db
    .select()
    .from(segmentBlocks)
    .where(inArray(segmentBlocks.segmentId, segmentIds))
    .orderBy(asc(segmentBlocks.blockOrder));
}

/** Of these segment ids, the segments of the given system (id → type). */
export async function segmentTypesInSystem(db: Db, systemId: string, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map<string, string>();
  const rows = await db
    .select({ id: segments.id, type: segments.type })
    .from(segments)
    .where(and(eq(segments.systemId, systemId), inArray(segments.id, ids)));
  return new Map(rows.map((r) => [r.id, r.type]));
}
