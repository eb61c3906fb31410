import type { BuildingBlock } from "@polyforge/contracts/building-blocks";
import type { ListResponse } from "@polyforge/contracts/pagination";
import type { SystemWithExecutions } from "@polyforge/contracts/system-executions";
import { asc, desc, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildingBlocks } from "../src/modules/building-blocks/schema";
import { systems } from "../src/modules/systems/schema";
import { startTestApp, type TestApp } from "./support/app";
import { databaseKinds } from "./support/database";
import { userClaims } from "./support/tokens";

/** Issue 27, migration 0014: the lists' indexes exist and the lists answer what they answered
 * before (the blocks page is now a merge of the user's and the global blocks, each read in order). */
describe.each(databaseKinds())("list indexes on %s", (kind) => {
  let testApp: TestApp;
  let token: string;
  const claims = userClaims();

  beforeAll(async () => {
    testApp = await startTestApp(kind);
    token = await testApp.issuer.sign(claims);
    await get("/api/v2/users/account");
    const db = testApp.app.database.db;
    // 60 blocks and 60 systems whose modification times interleave with the global amino acids'
    // (some older, some newer, several equal so that name and id decide), a few archived.
    const [{ oldest } = { oldest: new Date() }] = await db
      .select({ oldest: sql<Date>`min(${buildingBlocks.updatedAt})` })
      .from(buildingBlocks);
    const at = (i: number) => new Date(new Date(oldest).getTime() + (i % 7 === 0 ? 0 : (i - 30) * 1000));
    await db.insert(buildingBlocks).values(
      Array.from({ length: 60 }, (_, i) => ({
        ownerId: claims.sub,
        name: `Block ${String(i % 9).padStart(2, "0")}`,
        type: i % 3 === 0 ? ("dendrimer" as const) : ("linear" as const),
        data: { repeating_unit: "[*:1]CC[*:2]" },
        updatedAt: at(i),
        archivedAt: i % 11 === 0 ? new Date() : null,
      })),
    );
    await db.insert(systems).values(
      Array.from({ length: 60 }, (_, i) => ({
        ownerId: claims.sub,
        name: `System ${i}`,
        origin: "polymer_builder" as const,
        type: i % 2 === 0 ? ("system" as const) : ("molecule" as const),
        updatedAt: at(i),
        archivedAt: i % 13 === 0 ? new Date() : null,
      })),
    );
    await db.insert(systems).values({ ownerId: claims.sub, origin: "polymer_builder", isDraft: true });
  });
  afterAll(() => testApp?.close());

  async function get<T>(url: string): Promise<T> {
    const response = await testApp.app.inject({ method: "GET", url, headers: { authorization: `Bearer ${token}` } });
    expect(response.statusCode, url).toBe(200);
    return response.json() as T;
  }

  /** Every page of a list at this page size, concatenated, and the totals each page reported. */
  async function allPages<T>(url: string, pageSize: number) {
    const items: T[] = [];
    const totals = new Set<number>();
    for (let page = 1; page < 100; page++) {
      const body = await get<ListResponse<T>>(`${url}&page_size=${pageSize}&page_num=${page}`);
      totals.add(body.metadata.num_records);
      items.push(...body.data);
      if (body.data.length < pageSize) break;
    }
    return { items, totals: [...totals] };
  }

  it("creates the indexes of migration 0014", async () => {
    const result = (await testApp.app.database.db.execute(
      sql`SELECT indexname FROM pg_indexes WHERE indexname IN ('systems_catalogue_idx', 'systems_catalogue_type_idx', 'building_blocks_list_idx', 'polymers_system_idx') ORDER BY indexname`,
    )) as unknown as { rows: Array<{ indexname: string }> };
    expect(result.rows.map((row) => row.indexname)).toEqual([
      "building_blocks_list_idx",
      "polymers_system_idx",
      "systems_catalogue_idx",
      "systems_catalogue_type_idx",
    ]);
  });

  it.each([
    ["all blocks", "", sql`true`, 7],
    ["the creatable types", "&type=linear&type=dendrimer", sql`${buildingBlocks.type} <> 'aminoacid'`, 4],
    ["the amino acids", "&type=aminoacid", sql`${buildingBlocks.type} = 'aminoacid'`, 6],
    ["archived blocks", "&show_archived=true", sql`true`, 3],
    ["blocks by name", "&name=block%2003", sql`${buildingBlocks.name} ILIKE '%block 03%'`, 5],
  ])("pages through %s in the list's order, the same rows as one ordered read", async (_label, query, only, size) => {
    const archived = query.includes("show_archived=true") ? sql`NOT NULL` : sql`NULL`;
    // The list's query as it was before 0014: one read of both kinds, sorted.
    const expected = (
      await testApp.app.database.db
        .select({ id: buildingBlocks.id })
        .from(buildingBlocks)
        .where(
          sql`(${buildingBlocks.ownerId} = ${claims.sub} OR ${buildingBlocks.ownerId} IS NULL) AND ${buildingBlocks.archivedAt} IS ${archived} AND ${only}`,
        )
        .orderBy(desc(buildingBlocks.updatedAt), asc(buildingBlocks.name), asc(buildingBlocks.id))
    ).map((row) => row.id);
    expect(expected.length).toBeGreaterThan(size);
    const { items, totals } = await allPages<BuildingBlock>(`/api/v2/building_blocks?x=1${query}`, size);
    expect(items.map((block) => block.id)).toEqual(expected);
    expect(totals).toEqual([expected.length]);
  });

  it.each([
    ["the catalogue", ""],
    ["systems", "&type=system"],
    ["molecules", "&type=molecule"],
  ])("pages through %s newest first, drafts and archived left out", async (_label, query) => {
    const type = query.split("type=")[1];
    const expected = (
      await testApp.app.database.db
        .select({ id: systems.id })
        .from(systems)
        .where(
          sql`${systems.ownerId} = ${claims.sub} AND NOT ${systems.isDraft} AND ${systems.archivedAt} IS NULL AND ${type ? sql`${systems.type} = ${type}` : sql`true`}`,
        )
        .orderBy(desc(systems.updatedAt), desc(systems.id))
    ).map((row) => row.id);
    expect(expected.length).toBeGreaterThan(8);
    const { items, totals } = await allPages<SystemWithExecutions>(`/api/v2/systems?x=1${query}`, 8);
    expect(items.map((system) => system.id)).toEqual(expected);
    expect(totals).toEqual([expected.length]);
  });
});
