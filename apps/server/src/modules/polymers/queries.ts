import { eq } from "drizzle-orm";
import type { Db } from "../../platform/db/database";
import { polymerSegments } from "./schema";

/**
 * The polymers tables as other modules reach them (they never query them themselves): a segment
 * used by a polymer cannot be deleted.
 */

/** True when a polymer uses the segment (SEGMENT DELETE IN_USE). */
export async function isSegmentUsedByPolymer(db: Db, segmentId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: polymerSegments.id })
    .from(polymerSegments)
    .where(eq(polymerSegments.segmentId, segmentId))
    .limit(1);
  return row !== undefined;
}
