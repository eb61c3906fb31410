import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createSystemProcessing, type SystemProcessing } from "../src/jobs";
import { type SystemExecutionRow, systemExecutions } from "../src/modules/system-executions/schema";
import type { Config } from "../src/platform/config";
import type { Db } from "../src/platform/db/database";
import { REPO_ROOT } from "../src/platform/paths";
import { startTestApp, type TestApp } from "./support/app";
import { databaseKinds } from "./support/database";
import { type Caller, caller, expectStatus } from "./support/polymer-builder";
import {
  executionRow,
  spoilEngineJob,
  startedPolyethylene,
  type TinySystemOptions,
  waitForStatus,
  waitForSystemStatus,
} from "./support/processing";
import { slurmAvailable } from "./support/slurm";
import { userClaims } from "./support/tokens";
import { waitFor } from "./support/wait";

const execFileAsync = promisify(execFile);

/**
 * The Slurm executor (ISSUE 26) against a real one-node Slurm cluster, which `make test` starts
 * (deploy/slurm/one-node-cluster.sh). The node has the machine's CPUs: jobs here ask for one, and
 * the first test's for all of them, so a second job waits for resources while the first runs.
 */
const hasSlurm = slurmAvailable();
if (!hasSlurm) {
  console.warn(
    "slurm.test.ts skipped: sbatch is not installed (make test installs and starts a one-node cluster as root)",
  );
}

const CLUSTER_SCRIPT = join(REPO_ROOT, "deploy/slurm/one-node-cluster.sh");
const REST_URL = `http://127.0.0.1:${process.env.SLURMRESTD_PORT ?? "6820"}`;

/** The CPUs of the cluster's (one) node. */
function nodeCpus(): number {
  return Number(execFileSync("sinfo", ["--noheader", "--Node", "--format=%c"], { encoding: "utf8" }).split("\n")[0]);
}

/** Slurm's own word on a job: squeue while it knows it, else the job-completion log. */
async function slurmState(id: string): Promise<string> {
  const { stdout } = await execFileAsync("squeue", ["-h", "-t", "all", `-j${id}`, "-o", "%T"]).catch(() => ({
    stdout: "",
  }));
  if (stdout.trim()) return stdout.trim();
  const done = await execFileAsync("sacct", ["-c", "-n", "-P", "-S", "2000-01-01", `-j${id}`, "-o", "State"]);
  return done.stdout.trim().split("\n").at(-1) ?? "";
}

/** Every status an execution passes through, sampled every 50 ms until it ends or `stop` aborts (a
 * failed test's teardown: the database closes under it). */
function recordStatuses(db: Db, id: string, stop: AbortSignal) {
  const seen: Array<{ status: string; reason: string | null; progress: number }> = [];
  const done = (async () => {
    while (!stop.aborted) {
      const row = await executionRow(db, id).catch((error: unknown) => {
        if (stop.aborted) return undefined;
        throw error;
      });
      if (!row) return;
      const last = seen.at(-1);
      if (!last || last.status !== row.status || last.reason !== row.schedulerReason) {
        seen.push({ status: row.status, reason: row.schedulerReason, progress: row.progress });
      }
      if (["completed", "error", "cancelled"].includes(row.status)) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  // Called once the execution has ended: the sampler sees that end within one sample.
  return { seen, ended: () => done };
}

describe.skipIf(!hasSlurm).each(databaseKinds())("Slurm executor on %s", (kind) => {
  let testApp: TestApp;
  let db: Db;
  let user: Caller;
  let token: string;
  const runners: SystemProcessing[] = [];
  let samplers = new AbortController();

  beforeAll(async () => {
    // The app's own runner is off: each test drives runners with the settings it needs.
    testApp = await startTestApp(
      kind,
      {
        POLYFORGE_EXECUTOR: "slurm",
        POLYFORGE_SLURM_SHARED_DIR: mkdtempSync(join(tmpdir(), "polyforge-slurm-shared-")),
        POLYFORGE_SLURM_POLL_MS: "300",
        // Small requests that any test machine's node can grant (no cgroups: not enforced).
        POLYFORGE_SLURM_JOBS: JSON.stringify({ "build-system": { cpus: 1, memory: "1024M" } }),
      },
      { runJobs: false },
    );
    db = testApp.app.database.db;
    token = await testApp.issuer.sign(userClaims(), { expiresIn: "1h" });
    user = caller(testApp, token);
  });
  afterEach(async () => {
    samplers.abort();
    samplers = new AbortController();
    await Promise.all(runners.splice(0).flatMap((p) => [p.runner.stop(), p.structures.stop()]));
  });
  afterAll(() => testApp.close());
  // Real jobs on a shared 2-core machine, one of them held to its one-minute time limit.
  const SLOW = 300_000;
  // The claims and the restart depend on the database; the rest is the executor's own, run once.
  const once = kind === "pglite";

  function startRunner(slurm: Partial<NonNullable<Config["slurm"]>> = {}) {
    const config: Config = { ...testApp.config, slurm: { ...testApp.config.slurm!, ...slurm } };
    const processing = createSystemProcessing(config, db, testApp.app.log, {
      leaseMs: 3_000,
      heartbeatMs: 500,
      pollMs: 200,
    });
    processing.runner.start();
    runners.push(processing);
    return processing;
  }

  const queuedSystem = (options: TinySystemOptions = {}) =>
    startedPolyethylene(user, { copies: 2, units: 3, dynamicsSteps: 100, ...options });

  const submitted = (id: string) =>
    waitFor(
      `execution ${id} to be submitted to Slurm`,
      async () => (await executionRow(db, id)).schedulerJobId ?? undefined,
    );

  it(
    "runs build-system jobs as batch jobs: waiting for resources while the node is full, running, completed with results",
    async () => {
      const first = await queuedSystem();
      const second = await queuedSystem();
      const statuses = [first, second].map((job) => recordStatuses(db, job.executionId, samplers.signal));
      startRunner({ perKind: { "build-system": { cpus: nodeCpus(), memory: "1024M" } } });

      // Two jobs that each take the whole node: one runs, the other waits with Slurm's reason.
      const ids = await Promise.all([submitted(first.executionId), submitted(second.executionId)]);
      expect(new Set(ids).size).toBe(2);
      const waiting = await waitFor("a job waiting for resources with Slurm's reason", async () => {
        for (const job of [first, second]) {
          const row = await executionRow(db, job.executionId);
          if (row.status === "waiting_for_resources" && row.schedulerReason) return { job, row };
        }
        return undefined;
      });
      expect(waiting.row.schedulerReason).toMatch(/Resources|Priority/);
      const detail = await expectStatus(user, 200, "GET", `/systems/${waiting.job.systemId}`);
      expect(detail.system_executions.at(-1)).toMatchObject({
        status: "waiting_for_resources",
        scheduler_reason: expect.stringMatching(/Resources|Priority/),
      });

      const done = await Promise.all(
        [first, second].map((job) => waitForStatus(db, job.executionId, ["completed", "error", "cancelled"], 240_000)),
      );
      await Promise.all(statuses.map((s) => s.ended()));
      for (const [index, row] of done.entries()) {
        expect(row.errorMessage).toBeNull();
        expect(row.status).toBe("completed");
        expect(row.seed).toBe(1234);
        expect(row.resultFiles.map((f) => f.name)).toContain("system.pdb");
        expect(row.resultFiles.some((f) => f.name.endsWith("_files.zip"))).toBe(true);
        expect(await slurmState(ids[index]!)).toBe("COMPLETED");
        // Queued on Slurm, then started: waiting → processing/running → completed, in that order.
        const order = statuses[index]!.seen.map((s) => s.status);
        expect(order.at(-1)).toBe("completed");
        const started = order.findIndex((s) => s === "processing" || s === "running");
        expect(started).toBeGreaterThan(order.indexOf("waiting_for_resources"));
      }
      // The waiting job's reason was seen while it waited, and cleared once it ran.
      const waitedFor = statuses.flatMap((s) => s.seen).filter((s) => s.status === "waiting_for_resources" && s.reason);
      expect(waitedFor.length).toBeGreaterThan(0);
      const finished = await executionRow(db, waiting.job.executionId);
      expect(finished.schedulerReason).toBeNull();

      // The results were collected into the file store: the API serves them.
      const pdb = await testApp.app.inject({
        method: "GET",
        url: `/api/v2/systems/${first.systemId}/files/system.pdb`,
        headers: { authorization: `Bearer ${token}` },
      });
      expect(pdb.statusCode).toBe(200);
      expect(pdb.body).toMatch(/^(ATOM|HETATM)/m);
    },
    SLOW,
  );

  it.runIf(once)(
    "cancels with scancel when the user cancels (from another server instance)",
    async () => {
      const job = await queuedSystem({ dynamicsSteps: 2_000_000 });
      startRunner();
      const slurmId = await submitted(job.executionId);
      await waitForStatus(db, job.executionId, ["processing", "running"], 60_000);
      // The app's API cancels; the runner holding the job sees its lease gone and calls scancel.
      await expectStatus(user, 200, "DELETE", `/systems/${job.systemId}/process/cancel`);
      await waitFor("Slurm to cancel the job", async () =>
        (await slurmState(slurmId)).startsWith("CANCELLED") ? true : undefined,
      );
      expect((await executionRow(db, job.executionId)).status).toBe("cancelled");
    },
    SLOW,
  );

  it.runIf(once)(
    "reports a failing job with the engine's error and one killed at its time limit with Slurm's",
    async () => {
      // Bad input: a snapshot the engine refuses.
      const bad = await queuedSystem();
      await spoilEngineJob(db, bad.systemId);
      // A long simulation with a one-minute limit.
      const slow = await queuedSystem({ dynamicsSteps: 5_000_000 });
      startRunner({ perKind: { "build-system": { time: "1", cpus: 1, memory: "1024M" } } });

      const failed = await waitForStatus(db, bad.executionId, ["completed", "error", "cancelled"], 120_000);
      expect(failed.status).toBe("error");
      expect(failed.errorCode).not.toMatch(/^SLURM_/);
      expect(failed.errorMessage).toMatch(/Slurm job \d+ ended FAILED/);
      expect(await slurmState(failed.schedulerJobId!)).toBe("FAILED");

      const timedOut = await waitForStatus(db, slow.executionId, ["completed", "error", "cancelled"], 240_000);
      expect(timedOut.status).toBe("error");
      expect(timedOut.errorCode).toBe("SLURM_TIMEOUT");
      expect(timedOut.errorMessage).toMatch(/time limit/);
      expect(await slurmState(timedOut.schedulerJobId!)).toBe("TIMEOUT");
    },
    SLOW,
  );

  it(
    "follows a running job again by its Slurm job id after the server restarts",
    async () => {
      const job = await queuedSystem({ dynamicsSteps: 20_000 });
      const first = startRunner();
      const slurmId = await submitted(job.executionId);
      await waitForStatus(db, job.executionId, ["processing", "running"], 60_000);
      await first.runner.stop();
      runners.splice(runners.indexOf(first), 1);

      // The server is gone; the job goes on running on the cluster.
      expect(await slurmState(slurmId)).toMatch(/RUNNING|COMPLETING|COMPLETED/);
      const between = await executionRow(db, job.executionId);
      expect(between.leaseOwner).toBeNull();
      expect(["processing", "running"]).toContain(between.status);

      startRunner();
      const done = await waitForStatus(db, job.executionId, ["completed", "error", "cancelled"], 240_000);
      expect(done.errorMessage).toBeNull();
      expect(done.status).toBe("completed");
      expect(done.schedulerJobId).toBe(slurmId); // followed, not submitted again
      expect(done.attempts).toBe(2);
      expect(done.resultFiles.map((f) => f.name)).toContain("system.pdb");
    },
    SLOW,
  );

  it.runIf(once)(
    "shows a requeued job waiting again with Slurm's reason, then runs it to the end",
    async () => {
      const job = await queuedSystem({ dynamicsSteps: 20_000 });
      startRunner();
      const slurmId = await submitted(job.executionId);
      await waitForStatus(db, job.executionId, ["processing", "running"], 60_000);
      // What a node failure does to a batch job: back to the queue, started again later.
      await execFileAsync("scontrol", ["requeue", slurmId]);
      const requeued = await waitFor("the requeued job to wait again", async () => {
        const row = await executionRow(db, job.executionId);
        return row.status === "waiting_for_resources" && row.schedulerReason ? row : undefined;
      });
      expect(requeued.schedulerReason).toBe("BeginTime");
      // Slurm holds a requeued job back two minutes; let it start in two seconds: a batch job started
      // again within the second of its requeue is killed ("Job credential revoked", slurmctld.log).
      await execFileAsync("scontrol", ["update", `JobId=${slurmId}`, "StartTime=now+2"]);
      // Slurm starts it at its next scheduling pass; a short run may already be over when we look.
      await waitForStatus(db, job.executionId, ["processing", "running", "completed"], 180_000);
      const done = await waitForStatus(db, job.executionId, ["completed", "error", "cancelled"], 240_000);
      expect(done.errorMessage).toBeNull();
      expect(done.status).toBe("completed");
      expect(done.schedulerJobId).toBe(slurmId);
      expect(done.resultFiles.map((f) => f.name)).toContain("system.pdb");
    },
    SLOW,
  );

  it.runIf(once)(
    "converts a SMILES as a Slurm job too (structure jobs go through the same executor)",
    async () => {
      const convertJobs = async () =>
        (await execFileAsync("sacct", ["-c", "-n", "-P", "-S", "2000-01-01", "-o", "JobName,State"])).stdout
          .split("\n")
          .filter((line) => line.startsWith("polyforge-convert-smiles-"));
      const before = await convertJobs();
      const { id } = await expectStatus(user, 201, "POST", "/systems", {
        name: "Ethanol",
        description: "from the Slurm test",
        origin: "smiles",
      });
      await expectStatus(user, 202, "POST", `/systems/${id}/smiles`, { smiles: "CCO" });
      startRunner().structures.start();
      const system = await waitForSystemStatus(
        user,
        id,
        "the SMILES to be converted",
        ["converted", "failed", "error"],
        120_000,
        300,
      );
      expect(system.system_data.status).toBe("converted");
      // Another client of the cluster may have converted something meanwhile: ours is among the new.
      const added = (await convertJobs()).filter((line) => !before.includes(line));
      expect(added.length).toBeGreaterThan(0);
      expect(added.some((line) => line.endsWith("|COMPLETED"))).toBe(true);
    },
    SLOW,
  );

  it.runIf(once)(
    "ends a job whose Slurm record vanished in error with a message",
    async () => {
      const job = await queuedSystem();
      await db
        .update(systemExecutions)
        .set({
          status: "running",
          schedulerJobId: "987654321",
          leaseOwner: "dead",
          leaseExpiresAt: new Date(Date.now() - 1),
        })
        .where(eq(systemExecutions.id, job.executionId));
      startRunner();
      const done: SystemExecutionRow = await waitForStatus(db, job.executionId, ["completed", "error"], 60_000);
      expect(done.status).toBe("error");
      expect(done.errorCode).toBe("SLURM_JOB_LOST");
      expect(done.errorMessage).toMatch(/no record of job 987654321/);
    },
    SLOW,
  );

  it.runIf(once && existsSync("/usr/sbin/slurmrestd"))(
    "submits, follows and cancels through slurmrestd with a JWT",
    async () => {
      const jwt = execFileSync(CLUSTER_SCRIPT, ["token", "root", "3600"], { encoding: "utf8" }).trim();
      expect(jwt).toMatch(/^ey/);
      const rest = { url: REST_URL, user: "root", jwt, jwtFile: undefined };

      // slurmrestd is what the runner talks to: with a token it refuses, nothing is submitted.
      const refused = await queuedSystem();
      const refusing = startRunner({ rest: { ...rest, jwt: "not-a-token" } });
      const error = await waitForStatus(db, refused.executionId, ["completed", "error", "cancelled"], 60_000);
      expect(error.errorCode).toBe("SLURM_SUBMIT_FAILED");
      expect(error.errorMessage).toMatch(/slurmrestd/);
      expect(error.schedulerJobId).toBeNull();
      await refusing.runner.stop();

      const done = await queuedSystem();
      const cancelled = await queuedSystem({ dynamicsSteps: 2_000_000 });
      startRunner({ rest });

      const row = await waitForStatus(db, done.executionId, ["completed", "error", "cancelled"], 240_000);
      expect(row.errorMessage).toBeNull();
      expect(row.status).toBe("completed");
      expect(await slurmState(row.schedulerJobId!)).toBe("COMPLETED");

      const slurmId = await submitted(cancelled.executionId);
      await waitForStatus(db, cancelled.executionId, ["processing", "running"], 120_000);
      await expectStatus(user, 200, "DELETE", `/systems/${cancelled.systemId}/process/cancel`);
      await waitFor("slurmrestd to cancel the job", async () =>
        (await slurmState(slurmId)).startsWith("CANCELLED") ? true : undefined,
      );
    },
  );
});
