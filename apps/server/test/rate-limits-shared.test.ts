import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CommonErrors } from "@polyforge/contracts/errors";
import { afterEach, describe, expect, it } from "vitest";
import { type App, buildApp } from "../src/app";
import { loadConfig } from "../src/platform/config";
import type { DatabaseTarget } from "../src/platform/db/database";
import { createTestDatabase, databaseKinds } from "./support/database";
import { TestIssuer, userClaims } from "./support/tokens";

const WRITES_PER_MINUTE = 6;

/** The per-user write and processing-start limits lived in each instance's memory: two instances
 * allowed twice as much, and a restart forgot the count. */
describe.each(databaseKinds())("per-user API limits on %s", (kind) => {
  const apps: App[] = [];
  const drops: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
    for (const drop of drops.splice(0)) await drop();
  });

  async function start(database: DatabaseTarget, issuer: TestIssuer): Promise<App> {
    const config = loadConfig({
      LOG_LEVEL: "silent",
      POLYFORGE_DATA_DIR: mkdtempSync(join(tmpdir(), "polyforge-limits-")),
      WEB_DIST_DIR: join(tmpdir(), "polyforge-limits-no-web"),
      POLYFORGE_WRITES_PER_MINUTE: String(WRITES_PER_MINUTE),
      POLYFORGE_JOB_STARTS_PER_MINUTE: "2",
    });
    const app = await buildApp({ config, database, issuerKeys: issuer.keys(), runJobs: false });
    apps.push(app);
    return app;
  }

  const feedback = (app: App, token: string) =>
    app.inject({
      method: "PUT",
      url: "/api/v2/feedback",
      headers: { authorization: `Bearer ${token}` },
      payload: { description: "More please" },
    });

  /** The limits count per minute of the clock: start a test early in one, so that it ends in it. */
  async function freshMinute(): Promise<void> {
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 40_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
  }

  it.skipIf(kind === "pglite")(
    "counts one user's writes and processing starts across two instances on one database",
    async () => {
      const database = await createTestDatabase(kind);
      drops.push(database.drop);
      const issuer = await TestIssuer.create();
      const [first, second] = [await start(database.target, issuer), await start(database.target, issuer)];
      const token = await issuer.sign(userClaims());
      await freshMinute();
      const statuses: number[] = [];
      for (let i = 0; i < WRITES_PER_MINUTE + 2; i++) {
        statuses.push((await feedback(i % 2 === 0 ? first! : second!, token)).statusCode);
      }
      expect(statuses).toEqual([...Array(WRITES_PER_MINUTE).fill(201), 429, 429]);
      const refused = await feedback(second!, token);
      expect(refused.json().errors[0].error_code).toBe(CommonErrors.TOO_MANY_REQUESTS);
      expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
      // Another user has a count of their own.
      expect((await feedback(first!, await issuer.sign(userClaims()))).statusCode).toBe(201);

      // Processing starts: their own, smaller count, shared too (an unknown system answers 404).
      const starter = await issuer.sign(userClaims());
      const startProcessing = (app: App) =>
        app.inject({
          method: "POST",
          url: "/api/v2/systems/00000000-0000-4000-8000-000000000000/process/start",
          headers: { authorization: `Bearer ${starter}` },
        });
      expect([(await startProcessing(first!)).statusCode, (await startProcessing(second!)).statusCode]).toEqual([
        404, 404,
      ]);
      expect((await startProcessing(first!)).statusCode).toBe(429);
    },
    120_000,
  );

  it("keeps the count when the instance restarts", async () => {
    const database =
      kind === "pglite"
        ? {
            target: { kind, dataDir: mkdtempSync(join(tmpdir(), "polyforge-limits-pg-")) } as DatabaseTarget,
            drop: async () => {},
          }
        : await createTestDatabase(kind);
    drops.push(database.drop);
    const issuer = await TestIssuer.create();
    const token = await issuer.sign(userClaims());
    await freshMinute();
    const before = await start(database.target, issuer);
    for (let i = 0; i < WRITES_PER_MINUTE; i++) expect((await feedback(before, token)).statusCode).toBe(201);
    await before.close();
    apps.splice(apps.indexOf(before), 1);
    const after = await start(database.target, issuer);
    expect((await feedback(after, token)).statusCode).toBe(429);
  }, 120_000);
});
