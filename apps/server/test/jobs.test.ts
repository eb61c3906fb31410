import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { eq, inArray } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createSystemProcessing, type SystemProcessing } from "../src/jobs";
import { MAX_ATTEMPTS, SystemProcessingQueue } from "../src/modules/system-executions/processing";
import { systemExecutions } from "../src/modules/system-executions/schema";
import type { Db } from "../src/platform/db/database";
import { REPO_ROOT } from "../src/platform/paths";
import { createFileStore } from "../src/platform/storage/file-store";
import { startTestApp, type TestApp } from "./support/app";
import { databaseKinds } from "./support/database";
import { type Caller, caller, expectStatus } from "./support/polymer-builder";
import { enginesOf, executionRow, finishedPolyethylene, waitForStatus, watchClaims } from "./support/processing";
import { userClaims } from "./support/tokens";
import { waitFor } from "./support/wait";

/**
 * The job runner (ARCHITECTURE §7) against the real engine. These suites run the engine's
 * `build-structure` command, the quick first part of `build-system`, so that each job takes
 * seconds; the full pipeline runs in processing.test.ts.
 */
const ENGINE_COMMAND = "build-structure";

describe.each(databaseKinds())("job runner on %s", (kind) => {
  let testApp: TestApp;
  let db: Db;
  let user: Caller;
  let token: string;
  let processing: SystemProcessing | undefined;

  beforeAll(async () => {
    // The app's own runner is off: each test drives a runner it configures (short leases). One user
    // starts many jobs here within a minute: the per-user start limit is not what this suite tests.
    testApp = await startTestApp(kind, { POLYFORGE_JOB_STARTS_PER_MINUTE: "1000" }, { runJobs: false });
    db = testApp.app.database.db;
    token = await testApp.issuer.sign(userClaims(), { expiresIn: "1h" });
    user = caller(testApp, token);
  });

  const download = (bearer: string, path: string) =>
    testApp.app.inject({ method: "GET", url: `/api/v2${path}`, headers: { authorization: `Bearer ${bearer}` } });
  afterEach(async () => {
    await processing?.runner.stop();
    processing = undefined;
  });
  afterAll(() => testApp.close());

  function startRunner(maxJobs = 1) {
    processing = createSystemProcessing(testApp.config, db, testApp.app.log, {
      engineCommand: ENGINE_COMMAND,
      maxJobs,
      leaseMs: 3_000,
      heartbeatMs: 500,
      pollMs: 200,
    });
    processing.runner.start();
    return processing;
  }

  async function queuedSystem(): Promise<{ systemId: string; executionId: string }> {
    const system = await finishedPolyethylene(user, { copies: 2, units: 3 });
    const execution = await expectStatus(user, 201, "POST", `/systems/${system.id}/process/start`);
    expect(execution.status).toBe("waiting_for_resources");
    return { systemId: system.id, executionId: execution.id };
  }

  it("claims a waiting job, runs the engine, stores its files and records seed and versions", async () => {
    const { systemId, executionId } = await queuedSystem();
    startRunner();
    const done = await waitForStatus(db, executionId, ["completed", "error"]);
    expect(done.errorMessage).toBeNull();
    expect(done.status).toBe("completed");
    expect(done.progress).toBe(100);
    expect(done.attempts).toBe(1);
    expect(done.seed).toBe(1234);
    expect(done.versions.polyforge_engine).toMatch(/\d/);
    expect(done.leaseOwner).toBeNull();
    expect(done.resultFiles.map((f) => f.name).sort()).toEqual(["report.json", "system.gro", "system.pdb"]);

    const detail = await expectStatus(user, 200, "GET", `/systems/${systemId}`);
    expect(detail.system_executions.at(-1)).toMatchObject({ id: executionId, status: "completed" });
    const pdb = await download(token, `/systems/${systemId}/files/system.pdb`);
    expect(pdb.statusCode).toBe(200);
    expect(pdb.body).toMatch(/^CRYST1/m);
    expect(pdb.body).toMatch(/^(ATOM|HETATM)/m);
    const stranger = await download(await testApp.issuer.sign(userClaims()), `/systems/${systemId}/files/system.pdb`);
    expect(stranger.statusCode).toBe(404);
  });

  it("hands each waiting job to exactly one claimer (FOR UPDATE SKIP LOCKED)", async () => {
    const first = await queuedSystem();
    const second = await queuedSystem();
    const queue = new SystemProcessingQueue({
      db,
      store: createFileStore(testApp.config),
      workRoot: join(testApp.config.dataDir, "jobs"),
      logger: testApp.app.log,
    });
    const claims = await Promise.all(
      ["runner-a", "runner-b", "runner-c"].map((id) => queue.claim({ runnerId: id, leaseMs: 60_000 })),
    );
    const claimed = claims.filter((row) => row !== undefined);
    expect(claimed.map((row) => row.id).sort()).toEqual([first.executionId, second.executionId].sort());
    expect(new Set(claimed.map((row) => row.leaseOwner)).size).toBe(2);
    expect(claimed.every((row) => row.status === "processing")).toBe(true);
    // Leave nothing behind for the other tests' runners.
    await db
      .update(systemExecutions)
      .set({ status: "cancelled", leaseOwner: null })
      .where(inArray(systemExecutions.id, [first.executionId, second.executionId]));
  });

  it("takes back a job whose runner died (expired lease) and runs it to the end", async () => {
    const { executionId } = await queuedSystem();
    await db
      .update(systemExecutions)
      .set({ status: "running", leaseOwner: "dead-runner", leaseExpiresAt: new Date(Date.now() - 1000), attempts: 1 })
      .where(eq(systemExecutions.id, executionId));
    const { runner } = startRunner();
    const done = await waitForStatus(db, executionId, ["completed", "error"]);
    expect(done.status).toBe("completed");
    expect(done.attempts).toBe(2);
    // The runner frees its slot just after the job writes "completed", so wait for that too.
    await waitFor("the runner to let the job go", async () => (runner.activeJobs === 0 ? true : undefined), 5_000);
  });

  it("leaves a job with a live lease alone", async () => {
    const { executionId } = await queuedSystem();
    await db
      .update(systemExecutions)
      .set({ status: "running", leaseOwner: "busy-runner", leaseExpiresAt: new Date(Date.now() + 60_000), attempts: 1 })
      .where(eq(systemExecutions.id, executionId));
    const claims = watchClaims();
    startRunner();
    await claims.more(5).finally(claims.stop);
    expect(await executionRow(db, executionId)).toMatchObject({ status: "running", leaseOwner: "busy-runner" });
    await db.update(systemExecutions).set({ status: "cancelled" }).where(eq(systemExecutions.id, executionId));
  });

  it(`marks a job error after ${MAX_ATTEMPTS} interrupted attempts instead of retrying forever`, async () => {
    const { systemId, executionId } = await queuedSystem();
    await db
      .update(systemExecutions)
      .set({
        status: "processing",
        leaseOwner: "dead-runner",
        leaseExpiresAt: new Date(Date.now() - 1000),
        attempts: MAX_ATTEMPTS,
      })
      .where(eq(systemExecutions.id, executionId));
    startRunner();
    const done = await waitForStatus(db, executionId, ["error", "completed"], 10_000);
    expect(done).toMatchObject({ status: "error", errorCode: "INTERRUPTED", leaseOwner: null });
    expect(done.errorMessage).toMatch(/interrupted 3 times/);
    // An errored system can be started again.
    expect((await user.call("POST", `/systems/${systemId}/process/start`)).status).toBe(201);
    const latest = await expectStatus(user, 200, "GET", `/systems/${systemId}`);
    await db
      .update(systemExecutions)
      .set({ status: "cancelled" })
      .where(eq(systemExecutions.id, latest.system_executions.at(-1).id));
  });

  it("hands its jobs back when it shuts down mid-run, killing the engine", async () => {
    const system = await finishedPolyethylene(user, { copies: 2, units: 3, dynamicsSteps: 2_000_000 });
    const execution = await expectStatus(user, 201, "POST", `/systems/${system.id}/process/start`);
    processing = createSystemProcessing(testApp.config, db, testApp.app.log, { heartbeatMs: 500, pollMs: 200 });
    processing.runner.start();
    await waitForStatus(db, execution.id, ["running"], 180_000);
    await processing.runner.stop();
    expect(await executionRow(db, execution.id)).toMatchObject({
      status: "waiting_for_resources",
      leaseOwner: null,
      attempts: 1,
    });
    expect(await enginesOf(execution.id)).toEqual([]);
    await db.update(systemExecutions).set({ status: "cancelled" }).where(eq(systemExecutions.id, execution.id));
  });

  it.runIf(kind === "postgres")(
    "`polyforge worker` on another process runs the jobs of a shared database",
    async () => {
      const { systemId, executionId } = await queuedSystem();
      if (testApp.databaseTarget.kind !== "postgres") throw new Error("needs PostgreSQL");
      const worker = spawn(process.execPath, [join(REPO_ROOT, "apps/server/bin/polyforge.js"), "worker"], {
        env: {
          ...process.env,
          DATABASE_URL: testApp.databaseTarget.url,
          POLYFORGE_DATA_DIR: testApp.config.dataDir,
          LOG_LEVEL: "warn",
        },
        stdio: "ignore",
      });
      try {
        const done = await waitForStatus(db, executionId, ["completed", "error"], 120_000);
        expect(done.status).toBe("completed");
        expect(done.leaseOwner).toBeNull();
        // The worker's results are in the shared store, so the API serves them.
        expect((await download(token, `/systems/${systemId}/files/system.pdb`)).statusCode).toBe(200);
      } finally {
        worker.kill("SIGTERM");
        await once(worker, "exit");
      }
      expect(worker.exitCode).toBe(0);
    },
  );

  it.runIf(kind === "postgres")("a job whose worker was killed mid-run is taken back by another runner", async () => {
    const system = await finishedPolyethylene(user, { copies: 2, units: 3, dynamicsSteps: 2_000_000 });
    const execution = await expectStatus(user, 201, "POST", `/systems/${system.id}/process/start`);
    if (testApp.databaseTarget.kind !== "postgres") throw new Error("needs PostgreSQL");
    const worker = spawn(process.execPath, [join(REPO_ROOT, "apps/server/bin/polyforge.js"), "worker"], {
      env: { ...process.env, DATABASE_URL: testApp.databaseTarget.url, POLYFORGE_DATA_DIR: testApp.config.dataDir },
      stdio: "ignore",
    });
    await waitForStatus(db, execution.id, ["running"], 180_000);
    worker.kill("SIGKILL");
    await once(worker, "exit");
    const orphaned = await executionRow(db, execution.id);
    expect(orphaned.status).toBe("running");

    // The engine it left behind stops at its next progress line (nobody reads its output any more).
    await waitFor("the orphaned engine to stop", async () =>
      (await enginesOf(execution.id)).length === 0 ? true : undefined,
    );
    // Once the dead worker's lease lapses, a live runner takes the job back and runs it again.
    startRunner();
    const retaken = await waitFor(
      "the job to be taken back",
      async () => {
        const row = await executionRow(db, execution.id);
        return row.attempts === 2 && row.leaseOwner === processing?.runner.runnerId ? row : undefined;
      },
      60_000,
    );
    expect(["processing", "running"]).toContain(retaken.status);
    await expectStatus(user, 200, "DELETE", `/systems/${system.id}/process/cancel`);
  });

  it("runs at most POLYFORGE_MAX_JOBS engines at once", async () => {
    const jobs = [await queuedSystem(), await queuedSystem(), await queuedSystem()];
    const ids = jobs.map((job) => job.executionId);
    const { runner } = startRunner(1);
    let mostActive = 0;
    let mostHeld = 0;
    for (;;) {
      const rows = await db.select().from(systemExecutions).where(inArray(systemExecutions.id, ids));
      mostActive = Math.max(mostActive, rows.filter((r) => r.status === "processing" || r.status === "running").length);
      mostHeld = Math.max(mostHeld, runner.activeJobs);
      if (rows.every((r) => r.status === "completed" || r.status === "error")) {
        expect(rows.map((r) => r.status)).toEqual(["completed", "completed", "completed"]);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(mostActive).toBe(1);
    expect(mostHeld).toBe(1);
  });
});
