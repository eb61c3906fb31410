/**
 * Slurm transfer benchmark (issue 26): the same small job through the Slurm executor with its files
 * on a shared directory and through the file store by presigned URLs (the embedded store's signed
 * URLs, served by the app listening on 127.0.0.1:18710, and S3 on moto when the venv has it), in
 * one run, one job at a time, 5 each, polled every 0.5 s: queued → completed with results in the
 * file store, and Slurm's own run of the batch job (sacct -c, whole seconds), whose difference
 * between the transfers is the fetching and sending on the node.
 *
 * Run as root with the one-node cluster up:
 *   npx vitest run --config bench/slurm/vitest.config.ts bench/slurm/transfer.bench.test.ts
 * Raw figures: bench/slurm/out/transfer.json.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { it } from "vitest";
import { createSystemProcessing } from "../../apps/server/src/jobs";
import type { Config } from "../../apps/server/src/platform/config";
import { loadConfig } from "../../apps/server/src/platform/config";
import { REPO_ROOT } from "../../apps/server/src/platform/paths";
import { startTestApp } from "../../apps/server/test/support/app";
import { caller, expectStatus } from "../../apps/server/test/support/polymer-builder";
import { executionRow, finishedPolyethylene } from "../../apps/server/test/support/processing";
import { MOTO_SERVER, startS3Server } from "../../apps/server/test/support/s3-server";
import { userClaims } from "../../apps/server/test/support/tokens";

const execFileAsync = promisify(execFile);
const JOBS = 5;
const PORT = 18710;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

async function slurmRunSeconds(id: string): Promise<number> {
  const { stdout } = await execFileAsync("sacct", ["-c", "-n", "-P", "-S", "2000-01-01", `-j${id}`, "-o", "Start,End"]);
  const [start, end] = (stdout.trim().split("\n").at(-1) ?? "").split("|").map((t) => Date.parse(`${t}Z`));
  return (end! - start!) / 1000;
}

it("Slurm jobs: shared directory against the file store's presigned URLs", { timeout: 1_800_000 }, async () => {
  const s3 = existsSync(MOTO_SERVER) ? await startS3Server() : undefined;
  if (s3) await s3.createBucket("polyforge-bench");
  const base = {
    LOG_LEVEL: "silent",
    PORT: String(PORT),
    PUBLIC_URL: `http://127.0.0.1:${PORT}`,
    POLYFORGE_EXECUTOR: "slurm",
    POLYFORGE_SLURM_TRANSFER: "store",
    POLYFORGE_SLURM_POLL_MS: "500",
    POLYFORGE_SLURM_JOBS: JSON.stringify({ "build-structure": { cpus: 1, memory: "1024M", time: "10" } }),
  };
  // The app of the embedded store's route (its signed URLs), listening for the node.
  const testApp = await startTestApp("pglite", base, { runJobs: false });
  await testApp.app.listen({ host: "127.0.0.1", port: PORT });
  const db = testApp.app.database.db;
  const user = caller(testApp, await testApp.issuer.sign(userClaims(), { expiresIn: "4h" }));
  const env = { ...base, POLYFORGE_DATA_DIR: testApp.config.dataDir };
  const variants: Record<string, Config> = {
    shared: loadConfig({
      ...env,
      POLYFORGE_SLURM_TRANSFER: "shared",
      POLYFORGE_SLURM_SHARED_DIR: mkdtempSync(join(tmpdir(), "polyforge-bench-transfer-")),
    }),
    storeEmbedded: loadConfig(env),
    ...(s3 ? { storeS3: loadConfig({ ...env, ...s3.env("polyforge-bench") }) } : {}),
  };

  const results: Record<string, { queuedToCompletedS: number; slurmRunS: number; raw: number[] }> = {};
  for (const [name, config] of Object.entries(variants)) {
    const processing = createSystemProcessing(config, db, testApp.app.log, {
      engineCommand: "build-structure",
      pollMs: 100,
    });
    processing.runner.start();
    const totals: number[] = [];
    const runs: number[] = [];
    for (let i = 0; i < JOBS; i++) {
      const system = await finishedPolyethylene(user, { copies: 2, units: 3 });
      const queued = Date.now();
      const execution = await expectStatus(user, 201, "POST", `/systems/${system.id}/process/start`);
      processing.runner.wake();
      for (;;) {
        const row = await executionRow(db, execution.id);
        if (["completed", "error", "cancelled"].includes(row.status)) {
          if (row.status !== "completed") throw new Error(`${name}: job ended ${row.status}: ${row.errorMessage}`);
          totals.push((Date.now() - queued) / 1000);
          runs.push(await slurmRunSeconds(row.schedulerJobId!));
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    await processing.runner.stop();
    results[name] = { queuedToCompletedS: median(totals), slurmRunS: median(runs), raw: totals };
  }

  const out = join(REPO_ROOT, "bench/slurm/out");
  mkdirSync(out, { recursive: true });
  const report = { when: new Date().toISOString(), job: "build-structure, 2 chains of PE-3", results };
  writeFileSync(join(out, "transfer.json"), `${JSON.stringify(report, null, 2)}\n`);
  console.log(JSON.stringify(report, null, 2));
  await testApp.close();
  await s3?.close();
});
