import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, openDatabase } from "../src/platform/db/database";
import { users } from "../src/platform/identity/schema";
import { createTestDatabase, type DatabaseKind, databaseKinds, type TestDatabase } from "./support/database";
import { waitUntil } from "./support/wait";

const logger = pino({ level: "silent" });

describe.each(databaseKinds())("database on %s", (kind: DatabaseKind) => {
  let testDb: TestDatabase;
  let database: Database;
  beforeAll(async () => {
    testDb = await createTestDatabase(kind);
    database = await openDatabase(testDb.target, logger);
  });
  afterAll(async () => {
    await database?.close();
    await testDb?.drop();
  });

  it("applies the migrations: the tables exist and answer", async () => {
    expect(await database.ping()).toBe(true);
    const rows = await database.db.select().from(users);
    expect(rows).toEqual([]);
  });

  it("delivers NOTIFY to LISTEN handlers until they stop listening", async () => {
    const received: string[] = [];
    const stop = await database.listen("test_channel", (payload) => received.push(payload));
    await database.db.execute(sql`SELECT pg_notify('test_channel', 'first')`);
    await waitUntil("the first notification", () => received.length === 1);
    expect(received).toEqual(["first"]);

    await stop();
    await database.db.execute(sql`SELECT pg_notify('test_channel', 'second')`);
    await database.db.execute(sql`SELECT pg_notify('test_channel_other', 'x')`);
    // Notifications arrive in the order they were sent: once a later one on a channel still heard
    // has arrived, 'second' would have arrived too had the stopped handler still been listening.
    const probe: string[] = [];
    const stopProbe = await database.listen("test_channel_probe", (payload) => probe.push(payload));
    await database.db.execute(sql`SELECT pg_notify('test_channel', 'third')`);
    await database.db.execute(sql`SELECT pg_notify('test_channel_probe', 'after')`);
    await waitUntil("the probe", () => probe.length === 1);
    await stopProbe();
    expect(probe).toEqual(["after"]);
    expect(received).toEqual(["first"]);
  });
});

describe("PGlite persistence", () => {
  it("keeps the data in its directory across restarts and migrates again harmlessly", async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), "polyforge-pg-")), "pg");
    const first = await openDatabase({ kind: "pglite", dataDir }, logger);
    await first.db.insert(users).values({ email: "kept@example.org" });
    await first.close();

    const second = await openDatabase({ kind: "pglite", dataDir }, logger);
    const rows = await second.db.select().from(users);
    await second.close();
    expect(rows.map((r) => r.email)).toEqual(["kept@example.org"]);
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)("several API instances on one PostgreSQL server", () => {
  let testDb: TestDatabase;
  let instances: Database[] = [];
  beforeAll(async () => {
    testDb = await createTestDatabase("postgres");
    // Started together: the migration lock lets one migrate while the other waits.
    instances = await Promise.all([openDatabase(testDb.target, logger), openDatabase(testDb.target, logger)]);
  });
  afterAll(async () => {
    for (const instance of instances) await instance.close();
    await testDb?.drop();
  });

  it("fans a NOTIFY from one instance out to the listeners of the other", async () => {
    const [a, b] = instances as [Database, Database];
    const received: string[] = [];
    await b.listen("fan_out", (payload) => received.push(payload));
    await a.db.execute(sql`SELECT pg_notify('fan_out', 'from a')`);
    await waitUntil("the other instance's notification", () => received.length > 0);
    expect(received).toEqual(["from a"]);
  });
});
