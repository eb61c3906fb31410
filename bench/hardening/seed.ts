import { buildingBlocks } from "../../apps/server/src/modules/building-blocks/schema";
import { systems } from "../../apps/server/src/modules/systems/schema";
import type { TestApp } from "../../apps/server/test/support/start-app";

/** Gives the user `rows` linear building blocks ("Block i") and `rows` polymer-builder systems
 * ("System i"), inserted 500 at a time. The user's row must exist (after a first call of theirs). */
export async function seedListRows(testApp: TestApp, ownerId: string, rows: number): Promise<void> {
  const db = testApp.app.database.db;
  for (let start = 0; start < rows; start += 500) {
    const indexes = Array.from({ length: Math.min(500, rows - start) }, (_, i) => start + i);
    await db.insert(buildingBlocks).values(
      indexes.map((i) => ({
        ownerId,
        name: `Block ${i}`,
        type: "linear" as const,
        data: { repeating_unit: "[*:1]CC[*:2]", head_repeating_unit: "[*:2][H]", tail_repeating_unit: "[*:1][H]" },
      })),
    );
    await db
      .insert(systems)
      .values(indexes.map((i) => ({ ownerId, name: `System ${i}`, origin: "polymer_builder" as const })));
  }
}
