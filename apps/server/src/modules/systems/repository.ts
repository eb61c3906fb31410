import type { SystemResponse } from "@polyforge/contracts/systems";
import { and, eq } from "drizzle-orm";
import type { Db } from "../../platform/db/database";
import { buildingBlocks } from "../building-blocks/schema";
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

/** The blocks added to a draft (step 1) stop being draft blocks when the draft ends. */
export async function clearDraftBlocks(tx: Db, ownerId: string): Promise<void> {
  await tx
    .update(buildingBlocks)
    .set({ draft: false })
    .where(and(eq(buildingBlocks.ownerId, ownerId), eq(buildingBlocks.draft, true)));
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
