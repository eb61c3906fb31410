import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { eq, inArray } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createSystemProcessing, type SystemProcessing } from "../src/jobs";
import { structureJobs } from "../src/modules/molecular-systems/schema";
import { MAX_ATTEMPTS, STALE_ENGINE_NOTICE } from "../src/modules/system-executions/processing";
import { systemExecutions } from "../src/modules/system-executions/schema";
import type { Db } from "../src/platform/db/database";
import {
  type EngineExecutor,
  type ExecutorOutcome,
  type ExecutorRunOptions,
  LocalExecutor,
} from "../src/platform/jobs/executor";
import { newRunnerId } from "../src/platform/jobs/liveness";
import { startTestApp, type TestApp } from "./support/app";
import { databaseKinds } from "./support/database";
import { openNotifications } from "./support/notifications";
import { type Caller, caller, expectStatus } from "./support/polymer-builder";
import { executionRow, startedPolyethylene, watchClaims } from "./support/processing";
import { userClaims } from "./support/tokens";
import { waitFor } from "./support/wait";

/**
 * Issue 23 finding 2 (fair share of the job slots) and finding 3 (a takeback after a restart is
 * visible). The runner, the claim and the queue are the real ones; the fair-share suite runs
 * "endless" jobs on an executor that runs until it is stopped (or the test ends it), so that no
 * slot ever frees by itself.
 */

/** An executor whose jobs run until stopped, or until the test finishes them. */
class EndlessExecutor extends LocalExecutor {
  readonly running = new Set<string>();
  private readonly finishers = new Map<string, () => void>();
  override run(options: ExecutorRunOptions): Promise<ExecutorOutcome> {
    const id = options.jobName.replace(/^polyforge-/, "");
    this.running.add(id);
    return new Promise((resolve) => {
      const end = (outcome: ExecutorOutcome) => {
        this.running.delete(id);
        this.finishers.delete(id);
        resolve(outcome);
      };
      options.signal.addEventListener("abort", () => end({ kind: "error", code: "CANCELLED", message: "stopped" }));
      this.finishers.set(id, () => end({ kind: "result", payload: { files: [] } }));
    });
  }
  /** Ends a running job with a result (its slot frees). */
  finish(executionId: string): void {
    this.finishers.get(executionId)?.();
  }
}

describe.each(databaseKinds())("job slots and takeovers on %s", (kind) => {
  let testApp: TestApp;
  let db: Db;
  let processing: SystemProcessing | undefined;
  let socketUrl: string;

  beforeAll(async () => {
    // The app's own runner is off: each test drives a runner it configures.
    testApp = await startTestApp(kind, { POLYFORGE_JOB_STARTS_PER_MINUTE: "1000" }, { runJobs: false });
    db = testApp.app.database.db;
    await testApp.app.listen({ port: 0, host: "127.0.0.1" });
    socketUrl = `ws://127.0.0.1:${(testApp.app.server.address() as AddressInfo).port}/api/v2/notifications/`;
  });
  afterEach(async () => {
    await Promise.all([processing?.runner.stop(), processing?.structures.stop()]);
    processing = undefined;
    // Nothing left active for the next test's runner.
    await db
      .update(systemExecutions)
      .set({ status: "cancelled", leaseOwner: null, leaseExpiresAt: null })
      .where(inArray(systemExecutions.status, ["waiting_for_resources", "processing", "running"]));
    await db
      .update(structureJobs)
      .set({ status: "done", leaseOwner: null, leaseExpiresAt: null })
      .where(inArray(structureJobs.status, ["queued", "running"]));
  });
  afterAll(() => testApp.close());

  async function newUser(): Promise<Caller> {
    return caller(testApp, await testApp.issuer.sign(userClaims(), { expiresIn: "1h" }));
  }

  /** Finishes a tiny system of the user's and starts its processing; answers the execution id. */
  async function queued(user: Caller): Promise<string> {
    return (await startedPolyethylene(user, { copies: 1, units: 2 })).executionId;
  }

  /** Marks the execution running (attempt 1) under a runner of this machine whose process is `pid`,
   * its lease running for another minute. */
  async function holdRunning(
    executionId: string,
    pid: number,
    fields: Partial<typeof systemExecutions.$inferInsert> = {},
  ) {
    const runnerId = newRunnerId().split(":");
    runnerId[runnerId.length - 3] = String(pid);
    await db
      .update(systemExecutions)
      .set({
        status: "running",
        attempts: 1,
        leaseOwner: runnerId.join(":"),
        leaseExpiresAt: new Date(Date.now() + 60_000),
        ...fields,
      })
      .where(eq(systemExecutions.id, executionId));
  }

  function startRunner(executor: EngineExecutor, options: { maxJobs: number; userShare?: number }) {
    processing = createSystemProcessing(testApp.config, db, testApp.app.log, {
      ...options,
      leaseMs: 5_000,
      heartbeatMs: 500,
      pollMs: 100,
      executor,
    });
    processing.runner.start();
    return processing.runner;
  }

  async function statuses(ids: string[]): Promise<Record<string, string>> {
    const rows = await db.select().from(systemExecutions).where(inArray(systemExecutions.id, ids));
    return Object.fromEntries(rows.map((row) => [row.id, row.status]));
  }

  it("keeps one user to their share of the slots, so another user's job starts before their backlog", async () => {
    const first = await newUser();
    const second = await newUser();
    const backlog = [await queued(first), await queued(first), await queued(first), await queued(first)];
    const executor = new EndlessExecutor(2);
    // Two slots, half of them per user: the first user's endless jobs hold one slot, not both.
    startRunner(executor, { maxJobs: 2, userShare: 0.5 });
    await waitFor("the first user's first job to start", async () => (executor.running.size === 1 ? true : undefined));
    // Over ten more looks for work (a second of polls) it never gives the first user the idle slot.
    const claims = watchClaims();
    await claims.more(10).finally(claims.stop);
    expect(executor.running.size).toBe(1);

    const late = await queued(second);
    await waitFor(
      "the second user's job to start",
      async () => (executor.running.has(late) ? true : undefined),
      10_000,
    );
    const now = await statuses([...backlog, late]);
    expect(now[late]).toBe("processing");
    expect(backlog.filter((id) => now[id] === "processing")).toHaveLength(1);
    expect(backlog.filter((id) => now[id] === "waiting_for_resources")).toHaveLength(3);
  });

  /** A SMILES system of the user's with its conversion queued (a structure job); answers the system id. */
  async function conversionQueued(user: Caller, smiles: string): Promise<string> {
    const { id } = await expectStatus(user, 201, "POST", "/systems", { name: smiles, origin: "smiles" });
    await expectStatus(user, 202, "POST", `/systems/${id}/smiles`, { smiles });
    return id;
  }

  async function runningStructureJobs(): Promise<string[]> {
    const rows = await db.select().from(structureJobs).where(eq(structureJobs.status, "running"));
    return rows.map((row) => row.systemId);
  }

  it("keeps a validation slot one user cannot fill, also with one engine slot configured", async () => {
    const first = await newUser();
    const second = await newUser();
    const backlog = [
      await conversionQueued(first, "CCO"),
      await conversionQueued(first, "CCCO"),
      await conversionQueued(first, "CCCCO"),
    ];
    // The default deployment: one engine slot (POLYFORGE_MAX_JOBS=1), half of the slots per user.
    const executor = new EndlessExecutor(1);
    processing = createSystemProcessing(testApp.config, db, testApp.app.log, {
      leaseMs: 5_000,
      heartbeatMs: 500,
      pollMs: 100,
      executor,
    });
    processing.structures.start();
    await waitFor("the first user's first job to start", async () => (executor.running.size === 1 ? true : undefined));
    // Over a second of polls the first user's backlog never takes the slot kept for others.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(executor.running.size).toBe(1);

    // Another user's file starts while the first user's job still runs (it never ends here).
    const late = await conversionQueued(second, "CO");
    await waitFor(
      "the second user's job to start",
      async () => ((await runningStructureJobs()).includes(late) && executor.running.size === 2 ? true : undefined),
      10_000,
    );
    const running = await runningStructureJobs();
    expect(running).toHaveLength(2);
    expect(backlog.filter((id) => running.includes(id))).toHaveLength(1);
  });

  it("gives a freed slot to the user holding the fewest jobs, not to the oldest backlog", async () => {
    const first = await newUser();
    const second = await newUser();
    const backlog = [await queued(first), await queued(first), await queued(first)];
    const executor = new EndlessExecutor(1);
    startRunner(executor, { maxJobs: 1 });
    await waitFor("the first job to start", async () => (executor.running.has(backlog[0]!) ? true : undefined));
    const late = await queued(second);
    executor.finish(backlog[0]!);
    // The second user's job was queued after the whole backlog, and still goes next.
    await waitFor(
      "the second user's job to start",
      async () => (executor.running.has(late) ? true : undefined),
      10_000,
    );
    expect(await statuses(backlog.slice(1))).toEqual({
      [backlog[1]!]: "waiting_for_resources",
      [backlog[2]!]: "waiting_for_resources",
    });
  });

  it("takes back the job of a restarted server at once and says so on the execution and the socket", async () => {
    const token = await testApp.issuer.sign(userClaims(), { expiresIn: "1h" });
    const user = caller(testApp, token);
    const executionId = await queued(user);
    const system = await db
      .select({ systemId: systemExecutions.systemId })
      .from(systemExecutions)
      .where(eq(systemExecutions.id, executionId));
    // The server that ran it was killed mid-dynamics: its lease runs for another minute, its
    // process is gone (a pid that just exited, on this machine).
    const gone = spawn("true");
    await once(gone, "exit");
    await holdRunning(executionId, gone.pid!, { progress: 56, stage: "dynamics" });
    // …and left its engine running (a stand-in process group, recorded as runEngine records it).
    const stale = spawn("sleep", ["600"], { detached: true, stdio: "ignore" });
    await once(stale, "spawn");
    const stat = readFileSync(`/proc/${stale.pid}/stat`, "utf8");
    const jobs = join(testApp.config.dataDir, "jobs");
    mkdirSync(jobs, { recursive: true });
    writeFileSync(
      join(jobs, `polyforge-${executionId}.engine.json`),
      JSON.stringify({ pid: stale.pid, startTime: stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] }),
    );

    const { socket, messages } = await openNotifications(`${socketUrl}?token=${token}`);
    try {
      // The real engine (its quick build-structure command) runs the job taken back.
      processing = createSystemProcessing(testApp.config, db, testApp.app.log, {
        engineCommand: "build-structure",
        leaseMs: 60_000,
        heartbeatMs: 500,
        pollMs: 100,
      });
      processing.runner.start();
      // Taken back well before the dead server's lease (60 s) lapses.
      const retaken = await waitFor(
        "the job to be taken back",
        async () => {
          const row = await executionRow(db, executionId);
          return row.attempts === 2 ? row : undefined;
        },
        15_000,
      );
      expect(retaken.leaseOwner).toBe(processing.runner.runnerId);
      await once(stale, "exit");
      const expected = `The server running this stopped; processing was taken back and started again from the beginning (attempt 2 of ${MAX_ATTEMPTS}). ${STALE_ENGINE_NOTICE}`;
      await waitFor("the stale engine in the notice", async () =>
        (await executionRow(db, executionId)).notice === expected ? true : undefined,
      );
      // The owner sees it: on the system's executions and pushed on the socket.
      const detail = await expectStatus(user, 200, "GET", `/systems/${system[0]!.systemId}`);
      expect(detail.system_executions.at(-1)).toMatchObject({ id: executionId, notice: expected });
      await waitFor("the notices on the socket", async () =>
        messages.filter((m) => m.execution_id === executionId && typeof m.notice === "string").length >= 2
          ? true
          : undefined,
      );
      const pushed = messages.filter((m) => m.execution_id === executionId && m.notice).map((m) => m.notice);
      expect(pushed[0]).toMatch(/^The server running this stopped; processing was taken back/);
      expect(pushed.at(-1)).toBe(expected);
      const taken = messages.find((m) => m.execution_id === executionId && m.notice);
      expect(taken).toMatchObject({ status: "processing", progress: 0 });
    } finally {
      socket.close();
      stale.kill("SIGKILL");
    }
  });

  it("leaves alone a job whose runner on this machine is alive", async () => {
    const user = await newUser();
    const executionId = await queued(user);
    // Held by a live process of this machine (this test's own parent, say) with a long lease.
    await holdRunning(executionId, process.ppid);
    const claims = watchClaims();
    startRunner(new EndlessExecutor(1), { maxJobs: 1 });
    await claims.more(10).finally(claims.stop);
    expect(await executionRow(db, executionId)).toMatchObject({ status: "running", attempts: 1, notice: null });
  });
});
