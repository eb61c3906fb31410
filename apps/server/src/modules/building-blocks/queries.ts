import { and, eq, inArray, isNull, or } from "drizzle-orm";
import type { Db } from "../../platform/db/database";
import { type BuildingBlockRow, buildingBlocks } from "./schema";

/**
 * The building-blocks table as other modules reach it (they never query it themselves): segments
 * check and show the blocks they are made of, the systems module freezes them into the engine job
 * and ends a draft's blocks.
 */

/** These blocks, archived or not, in no particular order. */
export async function blocksByIds(db: Db, ids: string[]): Promise<BuildingBlockRow[]> {
  if (ids.length === 0) return [];
  return db.select().from(buildingBlocks).where(inArray(buildingBlocks.id, ids));
}

/** Of these block ids, the blocks the owner may use: their own or a global aminoacid, not archived. */
export async function usableBlocks(db: Db, ownerId: string, ids: string[]): Promise<BuildingBlockRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(buildingBlocks)
    .where(
      and(
        inArray(buildingBlocks.id, ids),
        or(eq(buildingBlocks.ownerId, ownerId), isNull(buildingBlocks.ownerId)),
        isNull(buildingBlocks.archivedAt),
      ),
    );
}

/** Every aminoacid block (global), for checking peptide sequences. */
export async function aminoacidBlocks(db: Db): Promise<BuildingBlockRow[]> {
  return db
    .select()
    .from(buildingBlocks)
    .where(and(eq(buildingBlocks.type, "aminoacid"), isNull(buildingBlocks.ownerId)));
}

/** The blocks added to a draft (step 1) stop being draft blocks when the draft ends. */
export async function endDraftBlocks(tx: Db, ownerId: string): Promise<void> {
  await tx
    .update(buildingBlocks)
    .set({ draft: false })
    .where(and(eq(buildingBlocks.ownerId, ownerId), eq(buildingBlocks.draft, true)));
}
