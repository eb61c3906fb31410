import type { BuildingBlock } from "@polyforge/contracts/building-blocks";
import type { ListResponse } from "@polyforge/contracts/pagination";
import type { SystemWithExecutions } from "@polyforge/contracts/system-executions";
import { asc, desc, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildingBlocks } from "../src/modules/building-blocks/schema";
import { potentials } from "../src/modules/potentials/schema";
import { systemExecutions } from "../src/modules/system-executions/schema";
import { systems } from "../src/modules/systems/schema";
import type { Db } from "../src/platform/db/database";
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
    // A page past the end has no row but still reports the total.
    const past = await get<ListResponse<SystemWithExecutions>>(`/api/v2/systems?x=1${query}&page_size=8&page_num=50`);
    expect(past.data).toEqual([]);
    expect(past.metadata).toEqual({ page_num: 50, page_size: 8, num_records: expected.length });
  });

  it("reports the total of a filtered page past the end, and 0 when nothing matches", async () => {
    const byName = await get<ListResponse<SystemWithExecutions>>("/api/v2/systems?name=system%201&page_size=100");
    expect(byName.data.length).toBeGreaterThan(1);
    const past = await get<ListResponse<SystemWithExecutions>>(
      "/api/v2/systems?name=system%201&page_size=5&page_num=9",
    );
    expect(past).toEqual({ data: [], metadata: { page_num: 9, page_size: 5, num_records: byName.data.length } });
    const none = await get<ListResponse<SystemWithExecutions>>("/api/v2/systems?name=nothing%20like%20it");
    expect(none.data).toEqual([]);
    expect(none.metadata.num_records).toBe(0);
  });

  it("lists each system's executions and potentials as its detail shows them (one statement)", async () => {
    const db = testApp.app.database.db;
    const listed = await get<ListResponse<SystemWithExecutions>>("/api/v2/systems?page_size=4");
    const [first, second, third] = listed.data.map((system) => system.id) as [string, string, string];
    await addExecutionsAndPotentials(db, claims.sub, [first, second, third]);
    const page = await get<ListResponse<SystemWithExecutions>>("/api/v2/systems?page_size=4");
    expect(page.metadata).toEqual(listed.metadata);
    expect(page.data.map((system) => system.id)).toEqual(listed.data.map((system) => system.id));
    for (const system of page.data) expect(system).toEqual(await get(`/api/v2/systems/${system.id}`));
    const [one, two, three, four] = page.data;
    expect(one!.system_executions.map((execution) => execution.status)).toEqual(["completed", "failed"]);
    expect(one!.system_executions[0]).toMatchObject({ progress: 1, seed: 42, started_at: at(1_234).toISOString() });
    expect(one!.system_executions[1]).toMatchObject({ progress: 0.37, simulated_ns: 0.123, finished_at: null });
    expect(one!.potentials.map((potential) => potential.name)).toEqual(["Potential - A", "Potential - B"]);
    expect(two!.system_executions).toHaveLength(1);
    expect(three!.potentials).toEqual([expect.objectContaining({ name: "Potential - C", system_type: "molecule" })]);
    expect([four!.potentials, four!.system_executions]).toEqual([[], []]);
  });
});

const at = (ms: number) => new Date(Date.UTC(2026, 0, 2, 3, 4, 5) + ms);

/** Two executions and two potentials on the first system, one execution on the second, one potential on the third. */
async function addExecutionsAndPotentials(
  db: Db,
  ownerId: string,
  [first, second, third]: [string, string, string],
): Promise<void> {
  await db.insert(systemExecutions).values([
    {
      ownerId,
      systemId: first,
      status: "completed",
      progress: 1,
      stage: "production",
      seed: 42,
      versions: { gromacs: "2024.1", engine: null },
      resultFiles: [{ name: "traj.xtc", size: 12 }] as never,
      simulatedNs: 2.5,
      totalNs: 2.5,
      remainingSeconds: 0,
      notice: "done",
      createdAt: at(0),
      startedAt: at(1_234),
      finishedAt: at(98_765),
    },
    {
      ownerId,
      systemId: first,
      status: "failed",
      progress: 0.37,
      errorCode: "ENGINE",
      errorMessage: "it broke",
      schedulerReason: "Priority",
      simulatedNs: 0.123,
      createdAt: at(100_000),
    },
    { ownerId, systemId: second, status: "waiting_for_resources", createdAt: at(5) },
  ]);
  // Microseconds in the database: the list, like the detail, answers milliseconds.
  await db.execute(
    sql`UPDATE ${systemExecutions} SET started_at = started_at + interval '0.000789 seconds' WHERE ${systemExecutions.systemId} = ${first}`,
  );
  await db.insert(potentials).values([
    {
      ownerId,
      systemId: first,
      name: "Potential - B",
      sanitizedName: "b",
      origin: "generate",
      status: "completed",
      systemType: "system",
      createdAt: at(2),
    },
    {
      ownerId,
      systemId: first,
      name: "Potential - A",
      sanitizedName: "a",
      origin: "generate",
      status: "completed",
      createdAt: at(1),
    },
    {
      ownerId,
      systemId: third,
      name: "Potential - C",
      sanitizedName: "c",
      origin: "generate",
      status: "failed",
      systemType: "molecule",
      createdAt: at(3),
    },
  ]);
}
