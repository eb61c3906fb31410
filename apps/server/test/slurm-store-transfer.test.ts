import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createSystemProcessing, type SystemProcessing } from "../src/jobs";
import type { Config } from "../src/platform/config";
import type { Db } from "../src/platform/db/database";
import { jobFileKeys, LocalJobFileUrls, StoreTransfer } from "../src/platform/jobs/slurm/transfer";
import { REPO_ROOT } from "../src/platform/paths";
import { startTestApp, type TestApp } from "./support/app";
import { type Caller, caller, expectStatus } from "./support/polymer-builder";
import {
  executionRow,
  spoilEngineJob,
  startedPolyethylene,
  waitForStatus,
  waitForSystemStatus,
} from "./support/processing";
import { freePort, MOTO_SERVER, type S3TestServer, startS3Server } from "./support/s3-server";
import { slurmAvailable } from "./support/slurm";
import { userClaims } from "./support/tokens";
import { waitFor } from "./support/wait";

const execFileAsync = promisify(execFile);

const hasSlurm = slurmAvailable();

/** The batch script Slurm keeps for a job (what the compute node runs). */
async function batchScriptOf(id: string): Promise<string> {
  return (await execFileAsync("scontrol", ["write", "batch_script", id, "-"])).stdout;
}

/**
 * ISSUE 26, files through the file store (POLYFORGE_SLURM_TRANSFER=store): no directory shared with
 * the compute node. The job's inputs are fetched by a presigned GET, its events, stderr and results
 * sent back by presigned PUTs, with the embedded store's signed URLs (served by this server, which
 * listens for real here) and with S3 (moto's server, when the venv has it). Runs against the
 * one-node cluster of `make test`.
 */
describe.skipIf(!hasSlurm).each([
  ["the embedded store's signed URLs", "local"],
  ["S3 presigned URLs (moto)", "s3"],
] as const)("Slurm jobs without a shared directory, through %s", (_name, storeKind) => {
  const skip = storeKind === "s3" && !existsSync(MOTO_SERVER);
  let testApp: TestApp;
  let db: Db;
  let user: Caller;
  let token: string;
  let s3: S3TestServer | undefined;
  const runners: SystemProcessing[] = [];

  beforeAll(async () => {
    if (skip) return;
    const port = await freePort();
    let storeEnv: NodeJS.ProcessEnv = {};
    if (storeKind === "s3") {
      s3 = await startS3Server();
      await s3.createBucket("polyforge-slurm");
      storeEnv = s3.env("polyforge-slurm");
    }
    testApp = await startTestApp(
      "pglite",
      {
        ...storeEnv,
        PORT: String(port),
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        POLYFORGE_EXECUTOR: "slurm",
        POLYFORGE_SLURM_TRANSFER: "store",
        POLYFORGE_SLURM_POLL_MS: "300",
        POLYFORGE_SLURM_JOBS: JSON.stringify({ "build-system": { cpus: 1, memory: "1024M" } }),
      },
      { runJobs: false },
    );
    // The compute node reaches the embedded store through this server's HTTP.
    await testApp.app.listen({ host: "127.0.0.1", port });
    db = testApp.app.database.db;
    token = await testApp.issuer.sign(userClaims(), { expiresIn: "1h" });
    user = caller(testApp, token);
  });
  afterEach(async () => {
    await Promise.all(runners.splice(0).flatMap((p) => [p.runner.stop(), p.structures.stop()]));
  });
  afterAll(async () => {
    await testApp?.close();
    await s3?.close();
  });

  function startRunner(slurm: Partial<NonNullable<Config["slurm"]>> = {}) {
    // The job's objects leave the store a second after its end (15 minutes by default).
    const config: Config = {
      ...testApp.config,
      slurm: { ...testApp.config.slurm!, storeCleanupMs: 1_000, ...slurm },
    };
    const processing = createSystemProcessing(config, db, testApp.app.log, { heartbeatMs: 500, pollMs: 200 });
    processing.runner.start();
    runners.push(processing);
    return processing;
  }

  const queuedSystem = () => startedPolyethylene(user, { copies: 2, units: 3, dynamicsSteps: 100 });

  it.skipIf(skip)(
    "runs a build-system job whose files come and go by presigned URLs, and collects its results",
    async () => {
      const job = await queuedSystem();
      const processing = startRunner();
      const keys = jobFileKeys(`polyforge-${job.executionId}`);
      const slurmId = await waitFor(
        "the job to be submitted",
        async () => (await executionRow(db, job.executionId)).schedulerJobId ?? undefined,
        60_000,
        200,
      );
      // What the node runs: remote_job with URLs, no path of the server's disk to read.
      const script = await batchScriptOf(slurmId);
      expect(script).toContain("-m polyforge_engine.remote_job");
      const manifest = JSON.parse(script.split("\n").find((line) => line.startsWith("{")) ?? "{}");
      expect(manifest.input_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
      expect(manifest.results_url).toMatch(storeKind === "s3" ? /X-Amz-Signature=/ : /signature=[0-9a-f]{64}/);
      expect(script).not.toContain(`--input ${testApp.config.dataDir}`);

      const done = await waitForStatus(db, job.executionId, ["completed", "error", "cancelled"], 240_000);
      expect(done.errorMessage).toBeNull();
      expect(done.status).toBe("completed");
      expect(done.seed).toBe(1234);
      expect(done.resultFiles.map((f) => f.name)).toContain("system.pdb");
      expect(done.resultFiles.some((f) => f.name.endsWith("_files.zip"))).toBe(true);
      const pdb = await testApp.app.inject({
        method: "GET",
        url: `/api/v2/systems/${job.systemId}/files/system.pdb`,
        headers: { authorization: `Bearer ${token}` },
      });
      expect(pdb.statusCode).toBe(200);
      expect(pdb.body).toMatch(/^(ATOM|HETATM)/m);
      // Once recorded, the job's objects leave the store.
      await waitFor(
        "the job's files to leave the store",
        async () => ((await processing.store.open(keys.events)) ? undefined : true),
        30_000,
        200,
      );
      expect(await processing.store.open(keys.inputs)).toBeUndefined();
      expect(await processing.store.open(keys.results)).toBeUndefined();
    },
    300_000,
  );

  it.skipIf(skip)(
    "reports a failing job with the engine's error, sent back through the store",
    async () => {
      const bad = await queuedSystem();
      await spoilEngineJob(db, bad.systemId);
      startRunner();
      const failed = await waitForStatus(db, bad.executionId, ["completed", "error", "cancelled"], 180_000);
      expect(failed.status).toBe("error");
      expect(failed.errorCode).not.toMatch(/^SLURM_/);
      expect(failed.errorMessage).toMatch(/Slurm job \d+ ended FAILED/);
    },
    240_000,
  );

  it.skipIf(skip || storeKind === "s3" || !existsSync("/usr/sbin/slurmrestd"))(
    "does the same through slurmrestd",
    async () => {
      const jwt = execFileSync(join(REPO_ROOT, "deploy/slurm/one-node-cluster.sh"), ["token", "root", "3600"], {
        encoding: "utf8",
      }).trim();
      const job = await queuedSystem();
      startRunner({
        rest: {
          url: `http://127.0.0.1:${process.env.SLURMRESTD_PORT ?? "6820"}`,
          user: "root",
          jwt,
          jwtFile: undefined,
        },
      });
      const done = await waitForStatus(db, job.executionId, ["completed", "error", "cancelled"], 240_000);
      expect(done.errorMessage).toBeNull();
      expect(done.status).toBe("completed");
      expect(done.resultFiles.map((f) => f.name)).toContain("system.pdb");
      expect(await batchScriptOf(done.schedulerJobId!)).toContain("-m polyforge_engine.remote_job");
    },
    300_000,
  );

  it.skipIf(skip)(
    "validates an uploaded structure as a Slurm job: the upload goes to the node, the viewer file comes back",
    async () => {
      const lines = ["CRYST1   20.000   20.000   20.000  90.00  90.00  90.00 P 1           1"];
      for (let w = 0; w < 3; w++) {
        const atoms: Array<[string, number[], string]> = [
          ["O", [2 + 4 * w, 2, 2], "O"],
          ["H1", [2.957 + 4 * w, 2, 2], "H"],
          ["H2", [1.76 + 4 * w, 2.927, 2], "H"],
        ];
        for (const [name, xyz, element] of atoms) {
          const [x, y, z] = xyz.map((v) => v.toFixed(3).padStart(8));
          lines.push(
            `HETATM${String(lines.length).padStart(5)}  ${name.padEnd(3)} HOH A${String(w + 1).padStart(4)}    ${x}${y}${z}  1.00  0.00          ${element.padStart(2)}`,
          );
        }
      }
      const file = Buffer.from(`${lines.join("\n")}\nEND\n`);
      const { id } = await expectStatus(user, 201, "POST", "/systems", {
        name: "Waters on Slurm",
        description: "from the store transfer test",
        origin: "upload",
      });
      const { upload_id } = await expectStatus(user, 200, "POST", `/systems/${id}/upload/begin`, {
        file: "waters.pdb",
        file_size: file.length,
      });
      const { url } = await expectStatus(
        user,
        200,
        "GET",
        `/systems/${id}/upload/upload_url?upload_id=${encodeURIComponent(upload_id)}&part_number=1`,
      );
      const put = await fetch(url, { method: "PUT", body: file });
      expect(put.status).toBe(200);
      await expectStatus(user, 200, "POST", `/systems/${id}/upload/complete`, {
        upload_id,
        parts: [{ part_number: 1, etag: put.headers.get("etag") }],
      });
      startRunner().structures.start();
      const system = await waitForSystemStatus(
        user,
        id,
        "the structure to be validated on Slurm",
        ["valid", "invalid", "error"],
        180_000,
        300,
      );
      expect(system.system_data.problem).toBeNull();
      expect(system.system_data.status).toBe("valid");
      expect(system.system_data.structure).toMatchObject({ atoms: 9, molecules: 3, viewer_file: expect.any(String) });
      const viewer = await testApp.app.inject({
        method: "GET",
        url: `/api/v2/systems/${id}/structure`,
        headers: { authorization: `Bearer ${token}` },
      });
      expect(viewer.statusCode).toBe(200);
      expect(viewer.body).toMatch(/HOH/);
    },
    240_000,
  );

  it.skipIf(skip)("collects a job's results as often as asked, the same files each time", async () => {
    const transfer = StoreTransfer.fromConfig(testApp.config);
    const name = `polyforge-collect-${Date.now()}`;
    const node = mkdtempSync(join(tmpdir(), "polyforge-node-"));
    mkdirSync(join(node, "simulation"));
    writeFileSync(join(node, "simulation", "final.pdb"), "ATOM      1  C1  PE  A   1\n");
    writeFileSync(join(node, "report.json"), "{}");
    await execFileAsync("tar", ["-cf", `${node}.tar`, "-C", node, "report.json", "simulation/final.pdb"]);
    await transfer.store.put(jobFileKeys(name).results, `${node}.tar`);
    const workdir = join(mkdtempSync(join(tmpdir(), "polyforge-server-")), "job");
    expect(await transfer.collect(name, workdir)).toBe(true);
    writeFileSync(join(workdir, "report.json"), "changed here");
    expect(await transfer.collect(name, workdir)).toBe(true);
    expect(readFileSync(join(workdir, "report.json"), "utf8")).toBe("{}");
    expect(readFileSync(join(workdir, "simulation", "final.pdb"), "utf8")).toMatch(/^ATOM/);
    await transfer.discard(name);
    expect(await transfer.collect(name, workdir)).toBe(false);
  });

  it.skipIf(skip || storeKind === "s3")("refuses a job file URL not signed for that object and method", async () => {
    const keys = jobFileKeys("polyforge-x");
    const processing = startRunner();
    const urls = LocalJobFileUrls.fromConfig(testApp.config);
    const put = new URL(await urls.url(keys.events, "PUT", 60));
    const send = (url: URL, method: string) =>
      fetch(url, { method, body: method === "PUT" ? "{}\n" : undefined }).then((r) => r.status);
    // The PUT URL does not GET, and another key or a changed expiry is refused.
    const asGet = new URL(put);
    asGet.searchParams.set("method", "GET");
    expect(await send(asGet, "GET")).toBe(403);
    const otherKey = new URL(put.toString().replace("polyforge-x", "polyforge-y"));
    expect(await send(otherKey, "PUT")).toBe(403);
    const later = new URL(put);
    later.searchParams.set("expires", String(Number(put.searchParams.get("expires")) + 1));
    expect(await send(later, "PUT")).toBe(403);
    expect(await send(put, "PUT")).toBe(200);
    const get = new URL(await urls.url(keys.events, "GET", 60));
    const body = await fetch(get).then((r) => r.text());
    expect(body).toBe("{}\n");
    await processing.store.removePrefix(keys.prefix);
  });
});
