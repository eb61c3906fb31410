import { and, eq } from "drizzle-orm";
import type { Db } from "../../platform/db/database";
import { buildingBlocks } from "./schema";

/**
 * The building-blocks table as other modules reach it (they never query it themselves): the
 * systems module ends a draft's blocks.
 */

/** The blocks added to a draft (step 1) stop being draft blocks when the draft ends. */
export async function endDraftBlocks(tx: Db, ownerId: string): Promise<void> {
  await tx
    .update(buildingBlocks)
    .set({ draft: false })
    .where(and(eq(buildingBlocks.ownerId, ownerId), eq(buildingBlocks.draft, true)));
}
