/**
 * Executor benchmark (issue 26): the same small jobs through the local runner and through Slurm
 * (the one-node cluster of deploy/slurm/one-node-cluster.sh), in the same run, on the real server
 * code (PGlite, the test app, runners as `make start` builds them).
 *
 * 1. Latency, one job at a time (5 each): queued → started (local: claimed and spawned; Slurm:
 *    RUNNING seen by the monitor) and queued → completed with results in the file store; for Slurm
 *    also Slurm's own submit/start/end times (sacct -c, whole seconds) to split the overhead into
 *    submit → running and end → results visible. Slurm polled every 3 s (the default) and 0.5 s.
 * 2. Throughput: 50 jobs queued at once, 2 at a time on both (local POLYFORGE_MAX_JOBS=2; Slurm
 *    jobs of 1 CPU on the 2-CPU node).
 *
 * The job is the engine's `build-structure` of 2 chains of PE-3 (about a second of engine work),
 * so the executors' overhead is what differs. Run as root with the cluster up:
 *   deploy/slurm/one-node-cluster.sh start
 *   npx vitest run --config bench/slurm/vitest.config.ts executors.bench
 * Raw figures: bench/slurm/out/results.json.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { it } from "vitest";
import { createSystemProcessing, type SystemProcessing } from "../../apps/server/src/jobs";
import { loadConfig } from "../../apps/server/src/platform/config";
import { REPO_ROOT } from "../../apps/server/src/platform/paths";
import { startTestApp, type TestApp } from "../../apps/server/test/support/app";
import { type Caller, caller, expectStatus } from "../../apps/server/test/support/polymer-builder";
import { executionRow, finishedPolyethylene } from "../../apps/server/test/support/processing";
import { userClaims } from "../../apps/server/test/support/tokens";

const execFileAsync = promisify(execFile);
const LATENCY_JOBS = 5;
const THROUGHPUT_JOBS = 50;
const CONCURRENCY = 2;

interface Timing {
  queuedMs: number;
  startedMs: number | null;
  completedMs: number;
  slurm?: { submit: number; start: number; end: number };
}

async function sacctTimes(id: string) {
  const { stdout } = await execFileAsync("sacct", [
    "-c",
    "-n",
    "-P",
    "-S",
    "2000-01-01",
    `-j${id}`,
    "-o",
    "Submit,Start,End",
  ]);
  const [submit, start, end] = (stdout.trim().split("\n").at(-1) ?? "").split("|").map((t) => Date.parse(`${t}Z`));
  return { submit: submit!, start: start!, end: end! };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

type Config = TestApp["config"];

/** The test app, its caller and the finished systems the jobs process, taken in order. */
interface Bench {
  testApp: TestApp;
  db: TestApp["app"]["database"]["db"];
  user: Caller;
  shared: string;
  systems: string[];
  next: number;
}

async function startBench(): Promise<Bench> {
  const shared = mkdtempSync(join(tmpdir(), "polyforge-bench-slurm-"));
  // 115 systems and 50 starts within a minute: past the per-user API limits (300 writes, 10 starts a minute).
  const limits = { POLYFORGE_WRITES_PER_MINUTE: "100000", POLYFORGE_JOB_STARTS_PER_MINUTE: "100000" };
  const testApp: TestApp = await startTestApp("pglite", limits, { runJobs: false });
  const db = testApp.app.database.db;
  const user: Caller = caller(testApp, await testApp.issuer.sign(userClaims(), { expiresIn: "4h" }));
  // Real clocks differ: PGlite's now() and this process's Date.now() are the same machine's clock.
  const systems: string[] = [];
  const total = 3 * LATENCY_JOBS + 2 * THROUGHPUT_JOBS;
  for (let i = 0; i < total; i++) systems.push((await finishedPolyethylene(user, { copies: 2, units: 3 })).id);
  return { testApp, db, user, shared, systems, next: 0 };
}

function slurmConfig(bench: Bench, pollMs: number): Config {
  return loadConfig({
    LOG_LEVEL: "silent",
    POLYFORGE_DATA_DIR: bench.testApp.config.dataDir,
    POLYFORGE_EXECUTOR: "slurm",
    POLYFORGE_SLURM_SHARED_DIR: bench.shared,
    POLYFORGE_SLURM_POLL_MS: String(pollMs),
    POLYFORGE_SLURM_JOBS: JSON.stringify({ "build-structure": { cpus: 1, memory: "1024M", time: "10" } }),
  });
}

function runner(bench: Bench, config: Config): SystemProcessing {
  const processing = createSystemProcessing(config, bench.db, bench.testApp.app.log, {
    engineCommand: "build-structure",
  });
  processing.runner.start();
  return processing;
}

interface QueuedJob {
  id: string;
  queuedMs: number;
  startedMs: number | null;
}

async function queueJobs(bench: Bench, count: number, processing: SystemProcessing): Promise<QueuedJob[]> {
  const queued: QueuedJob[] = [];
  for (let i = 0; i < count; i++) {
    const systemId = bench.systems[bench.next++]!;
    const queuedMs = Date.now();
    const execution = await expectStatus(bench.user, 201, "POST", `/systems/${systemId}/process/start`);
    processing.runner.wake();
    queued.push({ id: execution.id as string, queuedMs, startedMs: null as number | null });
  }
  return queued;
}

/** Polls the queued jobs' rows until all have ended; a job that did not complete throws. */
async function awaitJobs(bench: Bench, queued: QueuedJob[]): Promise<Timing[]> {
  const timings: Timing[] = [];
  const pending = new Set(queued);
  while (pending.size > 0) {
    for (const job of [...pending]) {
      const row = await executionRow(bench.db, job.id);
      if (job.startedMs === null && (row.status === "processing" || row.status === "running")) {
        job.startedMs = Date.now();
      }
      if (["completed", "error", "cancelled"].includes(row.status)) {
        if (row.status !== "completed") throw new Error(`job ${job.id} ended ${row.status}: ${row.errorMessage}`);
        pending.delete(job);
        const timing: Timing = { queuedMs: job.queuedMs, startedMs: job.startedMs, completedMs: Date.now() };
        if (row.schedulerJobId) timing.slurm = await sacctTimes(row.schedulerJobId);
        timings.push(timing);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return timings;
}

async function runJobs(bench: Bench, count: number, processing: SystemProcessing): Promise<Timing[]> {
  return awaitJobs(bench, await queueJobs(bench, count, processing));
}

async function latency(bench: Bench, config: Config) {
  const processing = runner(bench, config);
  const timings: Timing[] = [];
  for (let i = 0; i < LATENCY_JOBS; i++) timings.push(...(await runJobs(bench, 1, processing)));
  await processing.runner.stop();
  return timings;
}

async function throughput(bench: Bench, config: Config) {
  const processing = runner(bench, config);
  const started = Date.now();
  const timings = await runJobs(bench, THROUGHPUT_JOBS, processing);
  const seconds = (Date.now() - started) / 1000;
  await processing.runner.stop();
  return { seconds, jobsPerMinute: (THROUGHPUT_JOBS / seconds) * 60, timings };
}

const summary = (timings: Timing[]) => ({
  queuedToStartedMs: median(timings.map((t) => (t.startedMs ?? t.completedMs) - t.queuedMs)),
  queuedToCompletedMs: median(timings.map((t) => t.completedMs - t.queuedMs)),
  ...(timings[0]?.slurm
    ? {
        // sacct's times are whole seconds: these are ±1 s each.
        queuedToSlurmStartS: median(timings.map((t) => (t.slurm!.start - t.queuedMs) / 1000)),
        slurmRunS: median(timings.map((t) => (t.slurm!.end - t.slurm!.start) / 1000)),
        slurmEndToResultsVisibleS: median(timings.map((t) => (t.completedMs - t.slurm!.end) / 1000)),
      }
    : {}),
});

it("local runner vs Slurm: latency per job and throughput of 50 jobs", { timeout: 1_800_000 }, async () => {
  const bench = await startBench();
  const local: Config = { ...bench.testApp.config, maxJobs: CONCURRENCY };

  const localLatency = await latency(bench, local);
  const slurmLatency3s = await latency(bench, slurmConfig(bench, 3000));
  const slurmLatency500 = await latency(bench, slurmConfig(bench, 500));
  const localThroughput = await throughput(bench, local);
  const slurmThroughput = await throughput(bench, slurmConfig(bench, 3000));

  const results = {
    when: new Date().toISOString(),
    job: "build-structure, 2 chains of PE-3",
    latency: {
      local: summary(localLatency),
      slurmPoll3s: summary(slurmLatency3s),
      slurmPoll500ms: summary(slurmLatency500),
    },
    throughput: {
      jobs: THROUGHPUT_JOBS,
      concurrency: CONCURRENCY,
      local: { seconds: localThroughput.seconds, jobsPerMinute: localThroughput.jobsPerMinute },
      slurmPoll3s: { seconds: slurmThroughput.seconds, jobsPerMinute: slurmThroughput.jobsPerMinute },
      slurmOverLocalTime: slurmThroughput.seconds / localThroughput.seconds,
    },
    raw: { localLatency, slurmLatency3s, slurmLatency500 },
  };
  const out = join(REPO_ROOT, "bench/slurm/out");
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
  console.log(JSON.stringify({ latency: results.latency, throughput: results.throughput }, null, 2));
  await bench.testApp.close();
});
