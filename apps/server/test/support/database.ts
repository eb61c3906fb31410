import { randomBytes } from "node:crypto";
import pg from "pg";
import type { DatabaseTarget } from "../../src/platform/db/database";

export type DatabaseKind = DatabaseTarget["kind"];

/** Every integration suite runs on PGlite, and also on the PostgreSQL server of TEST_DATABASE_URL
 * when that is set (CI sets it). Use with `describe.each(databaseKinds())`. */
export function databaseKinds(): DatabaseKind[] {
  return process.env.TEST_DATABASE_URL ? ["pglite", "postgres"] : ["pglite"];
}

export interface TestDatabase {
  target: DatabaseTarget;
  /** Drops the throwaway database (PostgreSQL); call after the app using it has closed. */
  drop(): Promise<void>;
}

/** A fresh, empty database: in-memory PGlite, or a uniquely named database created on the
 * TEST_DATABASE_URL server and dropped afterwards. */
export async function createTestDatabase(kind: DatabaseKind): Promise<TestDatabase> {
  if (kind === "pglite") return { target: { kind: "pglite", dataDir: "memory://" }, drop: async () => {} };

  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) throw new Error("TEST_DATABASE_URL is not set");
  const name = `polyforge_test_${process.pid}_${randomBytes(4).toString("hex")}`;
  await withAdminClient(serverUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    target: { kind: "postgres", url: url.toString() },
    drop: () => withAdminClient(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)),
  };
}

async function withAdminClient(url: string, run: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await run(client);
  } finally {
    await client.end();
  }
}
