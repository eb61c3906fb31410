import { execFile, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSystemProcessing, type SystemProcessing } from "../src/jobs";
import type { Db } from "../src/platform/db/database";
import { REPO_ROOT } from "../src/platform/paths";
import { startTestApp, type TestApp } from "./support/app";
import { type Caller, caller, expectStatus } from "./support/polymer-builder";
import { executionRow, finishedPolyethylene, waitForStatus } from "./support/processing";
import { freePort } from "./support/s3-server";
import { userClaims } from "./support/tokens";
import { waitFor } from "./support/wait";

const execFileAsync = promisify(execFile);

/** Where sbatch is, or undefined (no Slurm on this machine: the suite is skipped). */
const SBATCH = (() => {
  try {
    return execFileSync("sh", ["-c", "command -v sbatch"], { encoding: "utf8" }).trim() || undefined;
  } catch {
    return undefined;
  }
})();

/** Every Slurm job of this name, live (squeue) or ended (the job-completion log). */
async function jobsNamed(name: string): Promise<string[]> {
  const ids = new Set<string>();
  const live = await execFileAsync("squeue", ["-h", "-t", "all", `--name=${name}`, "-o", "%i"]);
  // sacct -c ignores --name: every record, compared here.
  const ended = await execFileAsync("sacct", ["-c", "-n", "-P", "-S", "2000-01-01", "-o", "JobID,JobName"]);
  for (const id of live.stdout.split("\n").map((line) => line.trim())) if (/^\d+$/.test(id)) ids.add(id);
  for (const [id, jobName] of ended.stdout.split("\n").map((line) => line.trim().split("|"))) {
    if (id && /^\d+$/.test(id) && jobName === name) ids.add(id);
  }
  return [...ids];
}

/**
 * ISSUE 26, the crash window between `sbatch` and recording its job id: a `polyforge worker` is
 * killed (SIGKILL) right after sbatch answered — its sbatch is a wrapper that runs the real one
 * and then kills its caller. The runner that takes the job back must find that Slurm job by its
 * name (polyforge-<execution id>) and follow it, not submit a second one. Needs PostgreSQL (the
 * worker is another process) and the one-node cluster of `make test`.
 */
describe.skipIf(!SBATCH || !process.env.TEST_DATABASE_URL).each(["shared", "store"])(
  "Slurm executor (files: %s), killed between sbatch and saving the id",
  (transfer) => {
    let testApp: TestApp;
    let db: Db;
    let user: Caller;
    let processing: SystemProcessing | undefined;
    const shared = mkdtempSync(join(tmpdir(), "polyforge-slurm-crash-shared-"));
    // With the store transfer the marker of a submission is the job's inputs in the embedded store,
    // whose signed URLs this app (listening) serves to the node.
    const settings: Record<string, string> = {
      POLYFORGE_EXECUTOR: "slurm",
      POLYFORGE_SLURM_TRANSFER: transfer,
      POLYFORGE_SLURM_SHARED_DIR: shared,
      POLYFORGE_SLURM_POLL_MS: "300",
      POLYFORGE_SLURM_JOBS: JSON.stringify({ "build-system": { cpus: 1, memory: "1024M" } }),
    };

    beforeAll(async () => {
      const port = await freePort();
      settings.PORT = String(port);
      settings.PUBLIC_URL = `http://127.0.0.1:${port}`;
      testApp = await startTestApp("postgres", settings, { runJobs: false });
      await testApp.app.listen({ host: "127.0.0.1", port });
      db = testApp.app.database.db;
      user = caller(testApp, await testApp.issuer.sign(userClaims(), { expiresIn: "1h" }));
    });
    afterAll(async () => {
      await processing?.runner.stop();
      await testApp.close();
    });

    it("finds the submitted job by its name when the job is taken back, and follows it", async () => {
      if (testApp.databaseTarget.kind !== "postgres") throw new Error("needs PostgreSQL");
      const system = await finishedPolyethylene(user, { copies: 2, units: 3, dynamicsSteps: 100 });
      const execution = await expectStatus(user, 201, "POST", `/systems/${system.id}/process/start`);

      // An sbatch that submits for real, notes the id, and kills the worker that called it.
      const bin = mkdtempSync(join(tmpdir(), "polyforge-slurm-crash-bin-"));
      const marker = join(bin, "submitted");
      writeFileSync(
        join(bin, "sbatch"),
        `#!/bin/sh\nout=$(${SBATCH} "$@") || exit $?\necho "$out" > ${marker}\nkill -KILL "$PPID"\necho "$out"\n`,
        { mode: 0o755 },
      );
      const worker = spawn(process.execPath, [join(REPO_ROOT, "apps/server/bin/polyforge.js"), "worker"], {
        env: {
          ...process.env,
          ...settings,
          PATH: `${bin}:${process.env.PATH}`,
          DATABASE_URL: testApp.databaseTarget.url,
          POLYFORGE_DATA_DIR: testApp.config.dataDir,
          LOG_LEVEL: "warn",
        },
        stdio: ["ignore", "ignore", "pipe"],
      });
      let stderr = "";
      worker.stderr?.on("data", (chunk: Buffer) => {
        stderr = (stderr + chunk.toString()).slice(-4000);
      });
      const exited = once(worker, "exit");
      await waitFor(
        "the worker to submit the job and be killed",
        async () => (worker.exitCode !== null || worker.signalCode !== null ? true : undefined),
        180_000,
        200,
      ).catch((error: unknown) => {
        worker.kill("SIGKILL");
        throw new Error(`${error instanceof Error ? error.message : String(error)}; the worker said: ${stderr}`);
      });
      const [, signal] = await exited;
      expect(signal, `the worker said: ${stderr}`).toBe("SIGKILL");
      const slurmId = readFileSync(marker, "utf8").trim().split(";")[0];
      expect(slurmId).toMatch(/^\d+$/);

      // What the crash left: a Slurm job, and an execution that does not know it.
      const orphaned = await executionRow(db, execution.id);
      expect(orphaned.schedulerJobId).toBeNull();
      expect(orphaned.attempts).toBe(1);
      const name = `polyforge-${execution.id}`;
      expect(await jobsNamed(name)).toEqual([slurmId]);

      // Once the dead worker's lease lapses, a live runner takes the job back.
      processing = createSystemProcessing(testApp.config, db, testApp.app.log, { heartbeatMs: 500, pollMs: 200 });
      processing.runner.start();
      const adopted = await waitFor(
        "the job to be taken back with the Slurm job found",
        async () => {
          const row = await executionRow(db, execution.id);
          return row.schedulerJobId ? row : undefined;
        },
        120_000,
        200,
      );
      expect(adopted.schedulerJobId).toBe(slurmId);
      expect(adopted.attempts).toBe(2);

      const done = await waitForStatus(db, execution.id, ["completed", "error", "cancelled"], 240_000);
      expect(done.errorMessage).toBeNull();
      expect(done.status).toBe("completed");
      expect(done.schedulerJobId).toBe(slurmId);
      expect(done.resultFiles.map((f) => f.name)).toContain("system.pdb");
      // One Slurm job for the execution, not two.
      expect(await jobsNamed(name)).toEqual([slurmId]);
    }, 300_000);
  },
);
