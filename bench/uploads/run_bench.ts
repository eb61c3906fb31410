/**
 * Upload and conversion benchmark (issue 20), against the real API server on loopback:
 *
 * 1. A file of --size-mb MB uploaded by the S3 multipart protocol as the web client does it (5 MB
 *    parts, 4 in flight: upload_url → PUT → ETag, then complete), to the embedded store and to a
 *    real S3-protocol server (moto). Throughput, and the server's resident memory sampled every
 *    50 ms against its idle size; beside them the same parts PUT to a bare Node HTTP server that
 *    streams each to a file (bare_server.mjs), the floor of a part upload on this machine.
 * 2. Save structure → converted through the API for aspirin and a 199-heavy-atom molecule
 *    (HO-(CH2CH2O)66-H), beside the engine's own convert-smiles run on the same SMILES.
 *
 * Run: node --import tsx bench/uploads/run_bench.ts [--size-mb 2000] [--skip-s3] [--skip-conversions]
 *      [--runs 3] [--in-flight 4] [--port-base 18812] [--baseline <dir>] [--out results.json]
 *      [--node-flags "<flags>"] [--peers md5,crc32] [--no-server-flags]
 * --node-flags gives node these flags for this tree's server only (with --baseline . the same code runs
 * beside it without them; e.g. "--max-semi-space-size=64", or "--trace-gc", whose lines go to stderr).
 * --baseline names another checkout of the repository (e.g. `git archive <commit> | tar -x -C dir`,
 * with a node_modules symlink): its server is measured beside this one's, in turns with the bare
 * peer, so a change is set against the code before it under the same load. --runs repeats each.
 * Several, comma-separated, are measured in turn (results `baseline`, `baseline2`, …; each run's
 * `root` names its checkout).
 * --peers md5,crc32 (the default) runs the bare peer once with each ETag digest per round (`bare`: MD5,
 * as S3 and the embedded store before 26 Nov; `bare_crc32`: zlib's CRC-32, as the embedded store now);
 * `--peers md5` runs the MD5 peer alone. Every measurement records the 1-minute load average (load_1m).
 * --cpu-prof <dir> has the server and the bare peer write V8 CPU profiles there (open them in Chrome's
 * DevTools or speedscope). Ports: the base (server), base+1 (moto), base+2 (the bare peer). Raw figures:
 * bench/uploads/out/results.json.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { open, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { exportJWK, generateKeyPair, SignJWT } from "jose";

const ROOT = resolve(import.meta.dirname, "../..");
const OUT = join(ROOT, "bench/uploads/out");
const PYTHON = join(ROOT, ".venv/bin/python");
const MB = 1024 * 1024;
const PART = 5 * MB;
const ISSUER = "https://bench.invalid";

const args = process.argv.slice(2);
const flag = (name: string, fallback: string) => {
  const at = args.indexOf(name);
  return at >= 0 ? (args[at + 1] ?? fallback) : fallback;
};
/** Parts in flight at once: the web client's PARTS_IN_FLIGHT unless told. */
const IN_FLIGHT = Number(flag("--in-flight", "4"));
const PORT_BASE = Number(flag("--port-base", "18812"));
const SERVER_PORT = PORT_BASE;
const MOTO_PORT = PORT_BASE + 1;
const BARE_PORT = PORT_BASE + 2;
const skipConversions = args.includes("--skip-conversions");
const outName = flag("--out", "results.json");
/** Other checkouts measured beside this one: `baseline`, or with several (comma-separated)
 * `baseline`, `baseline2`, … in the order given. */
const baselines = args.includes("--baseline")
  ? flag("--baseline", "")
      .split(",")
      .filter(Boolean)
      .map((dir, i) => [i === 0 ? "baseline" : `baseline${i + 1}`, resolve(dir)] as const)
  : [];
const sizeMb = Number(flag("--size-mb", "2000"));
const runs = Number(flag("--runs", "3"));
const skipS3 = args.includes("--skip-s3");
const cpuProfDir = args.includes("--cpu-prof") ? resolve(flag("--cpu-prof", "")) : undefined;
/** Node's flags for the processes measured (a CPU profile each when asked). */
const profileArgs = cpuProfDir ? ["--cpu-prof", `--cpu-prof-dir=${cpuProfDir}`] : [];
/** Node's flags for every server measured, as `make start` and apps/server's `start` give them (a full GC
 * lets the old generation grow to 2 × live: socket chunks awaiting a scavenge count against that limit,
 * and with V8's ~1.5 × the app's full GCs cascade through an upload; bench/README.md).
 * --no-server-flags runs them with Node's defaults. */
const SERVER_NODE_FLAGS = args.includes("--no-server-flags") ? [] : ["--heap-growing-percent=100"];
/** Node's flags for this tree's server only (e.g. V8's, set against `--baseline .` without them). */
const localNodeFlags = flag("--node-flags", "").split(" ").filter(Boolean);
/** The bare peer's ETag digests, one run of the peer each per round. */
const peerDigests = flag("--peers", "md5,crc32")
  .split(",")
  .filter((digest) => digest === "md5" || digest === "crc32");

const work = mkdtempSync(join(tmpdir(), "uploads-bench-"));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Resident memory of a process in MB (VmRSS). */
function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** CPU seconds (user + system) of a process, or of one of its threads: steadier than wall time on a
 * shared machine. The main thread (tid = pid) is the server's event loop. */
function cpuSeconds(pid: number, tid?: number): number {
  const stat = readFileSync(tid ? `/proc/${pid}/task/${tid}/stat` : `/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** A PDB-like text file of the given size, written in 1 MB blocks. */
async function makeFile(path: string, megabytes: number) {
  const line = "ATOM      1  C   PEO A   1      12.345  23.456  34.567  1.00  0.00           C\n";
  const block = Buffer.from(line.repeat(Math.ceil(MB / line.length)).slice(0, MB));
  const out = createWriteStream(path);
  for (let i = 0; i < megabytes; i++) {
    if (!out.write(block)) await new Promise<void>((r) => out.once("drain", () => r()));
  }
  await new Promise<void>((r, j) => {
    out.once("error", j);
    out.end(() => r());
  });
}

async function signer() {
  const { publicKey, privateKey } = await generateKeyPair("RS256");
  const jwk = { ...(await exportJWK(publicKey)), kid: "bench", alg: "RS256", use: "sig" };
  const jwksFile = join(work, "jwks.json");
  writeFileSync(jwksFile, JSON.stringify({ keys: [jwk] }));
  const sub = crypto.randomUUID();
  const token = await new SignJWT({
    sub,
    email: `bench-${sub.slice(0, 8)}@example.org`,
    given_name: "Bench",
    family_name: "Mark",
    name: "Bench Mark",
    organization: "other",
    realm_access: { roles: ["user"] },
    allow_impersonation: false,
  })
    .setProtectedHeader({ alg: "RS256", kid: "bench" })
    .setIssuer(ISSUER)
    .setIssuedAt()
    .setExpirationTime("2h")
    .sign(privateKey);
  return { jwksFile, token };
}

interface Server {
  child: ChildProcess;
  origin: string;
  stop(): Promise<void>;
}

async function startServer(
  env: NodeJS.ProcessEnv,
  jwksFile: string,
  root = ROOT,
  flags: string[] = [],
): Promise<Server> {
  const origin = `http://127.0.0.1:${SERVER_PORT}`;
  const child = spawn(
    "node",
    [...profileArgs, ...SERVER_NODE_FLAGS, ...flags, "--import", "tsx", join(root, "bench/uploads/server.ts")],
    {
      cwd: root,
      stdio: ["ignore", "pipe", "inherit"],
      env: {
        ...process.env,
        PORT: String(SERVER_PORT),
        PUBLIC_URL: origin,
        LOG_LEVEL: "warn",
        POLYFORGE_DATA_DIR: join(work, `data-${Date.now()}`),
        BENCH_JWKS_FILE: jwksFile,
        BENCH_ISSUER: ISSUER,
        ...env,
      },
    },
  );
  // Whatever the server prints (e.g. --trace-gc through --node-flags) goes to stderr, never blocks it.
  child.stdout?.pipe(process.stderr);
  for (let i = 0; i < 600; i++) {
    const up = await fetch(`${origin}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (child.exitCode !== null) throw new Error("the server exited");
    await sleep(100);
  }
  return {
    child,
    origin,
    stop: async () => {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

function api(origin: string, token: string) {
  return async (method: string, path: string, body?: object) => {
    const response = await fetch(`${origin}/api/v2${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
}

/** The file in parts of PART bytes, IN_FLIGHT at once as the web client sends them, each read into
 * its worker's own buffer and handed to `sendPart`. */
async function sendParts(file: string, size: number, sendPart: (partNumber: number, body: Buffer) => Promise<void>) {
  const parts = Math.ceil(size / PART);
  const handle = await open(file, "r");
  let next = 1;
  const worker = async () => {
    const buffer = Buffer.allocUnsafe(PART);
    while (next <= parts) {
      const partNumber = next++;
      const start = (partNumber - 1) * PART;
      const length = Math.min(PART, size - start);
      await handle.read(buffer, 0, length, start);
      await sendPart(partNumber, buffer.subarray(0, length));
    }
  };
  try {
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  } finally {
    await handle.close();
  }
}

/** One upload as the web client makes it; the server's RSS sampled throughout. */
async function uploadRun(server: Server, token: string, file: string, size: number) {
  const call = api(server.origin, token);
  const pid = server.child.pid!;
  const idleSamples: number[] = [];
  for (let i = 0; i < 20; i++) {
    idleSamples.push(rssMb(pid));
    await sleep(50);
  }
  const idle = median(idleSamples);
  let peak = idle;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(pid));
  }, 50);

  const { id } = await call("POST", "/systems", { name: "Bench upload", description: "", origin: "upload" });
  const { upload_id } = await call("POST", `/systems/${id}/upload/begin`, { file: "bench.pdb", file_size: size });
  const parts = Math.ceil(size / PART);
  const etags: Array<{ part_number: number; etag: string }> = [];
  const cpuBefore = cpuSeconds(pid);
  const loopBefore = cpuSeconds(pid, pid);
  const started = performance.now();
  let urlMs = 0;
  let putMs = 0;
  await sendParts(file, size, async (partNumber, body) => {
    const t0 = performance.now();
    const { url } = await call(
      "GET",
      `/systems/${id}/upload/upload_url?upload_id=${encodeURIComponent(upload_id)}&part_number=${partNumber}`,
    );
    const t1 = performance.now();
    const response = await fetch(url, { method: "PUT", body });
    urlMs += t1 - t0;
    putMs += performance.now() - t1;
    if (!response.ok) throw new Error(`part ${partNumber}: ${response.status} ${await response.text()}`);
    etags.push({ part_number: partNumber, etag: response.headers.get("etag") ?? "" });
  });
  const uploaded = performance.now();
  const cpuParts = cpuSeconds(pid) - cpuBefore;
  const loopParts = cpuSeconds(pid, pid) - loopBefore;
  await call("POST", `/systems/${id}/upload/complete`, { upload_id, parts: etags });
  const completed = performance.now();
  const cpuAll = cpuSeconds(pid) - cpuBefore;
  clearInterval(sampler);
  const sizeMbExact = size / MB;
  return {
    load_1m: loadavg()[0],
    size_mb: Math.round(sizeMbExact),
    parts,
    upload_s: (uploaded - started) / 1000,
    // Summed over the parts (4 run at once): where a part's time goes.
    upload_url_ms_per_part: urlMs / parts,
    put_ms_per_part: putMs / parts,
    complete_s: (completed - uploaded) / 1000,
    upload_mb_s: sizeMbExact / ((uploaded - started) / 1000),
    total_mb_s: sizeMbExact / ((completed - started) / 1000),
    idle_rss_mb: idle,
    peak_rss_mb: peak,
    rss_over_idle_mb: peak - idle,
    // The server's CPU for the parts (all threads, and its event loop alone) and with complete.
    server_cpu_parts_s: cpuParts,
    event_loop_cpu_parts_s: loopParts,
    server_cpu_total_s: cpuAll,
    mb_per_event_loop_cpu_s: sizeMbExact / loopParts,
  };
}

/** The same parts, 4 in flight, PUT to the bare server (no upload_url call, no complete). */
async function bareRun(file: string, size: number, digest = "md5") {
  const origin = `http://127.0.0.1:${BARE_PORT}`;
  const nodeArgs = [
    ...profileArgs,
    join(ROOT, "bench/uploads/bare_server.mjs"),
    join(work, "bare"),
    String(BARE_PORT),
    digest,
  ];
  const child = spawn("node", nodeArgs, {
    stdio: "ignore",
  });
  for (let i = 0; i < 100; i++) {
    if (
      await fetch(origin).then(
        () => true,
        () => false,
      )
    )
      break;
    await sleep(100);
  }
  const cpuBefore = cpuSeconds(child.pid!);
  const started = performance.now();
  await sendParts(file, size, async (partNumber, body) => {
    const response = await fetch(`${origin}/part/${partNumber}`, { method: "PUT", body });
    if (!response.ok || !response.headers.get("etag")) throw new Error(`bare part ${partNumber}: ${response.status}`);
  });
  const seconds = (performance.now() - started) / 1000;
  const cpu = cpuSeconds(child.pid!) - cpuBefore;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
  await rm(join(work, "bare"), { recursive: true, force: true });
  return {
    load_1m: loadavg()[0],
    digest,
    upload_s: seconds,
    upload_mb_s: size / MB / seconds,
    server_cpu_s: cpu,
    mb_per_server_cpu_s: size / MB / cpu,
  };
}

async function startMoto() {
  const endpoint = `http://127.0.0.1:${MOTO_PORT}`;
  const child = spawn(join(ROOT, ".venv/bin/moto_server"), ["-H", "127.0.0.1", "-p", String(MOTO_PORT)], {
    stdio: "ignore",
    // Parts and objects spill to disk past 1 MB instead of living in moto's memory.
    env: { ...process.env, MOTO_S3_DEFAULT_KEY_BUFFER_SIZE: String(MB) },
  });
  for (let i = 0; i < 300; i++) {
    if (
      await fetch(`${endpoint}/`).then(
        () => true,
        () => false,
      )
    )
      break;
    await sleep(200);
  }
  const client = new S3Client({
    endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId: "bench", secretAccessKey: "bench" },
  });
  await client.send(new CreateBucketCommand({ Bucket: "bench" }));
  client.destroy();
  return {
    env: {
      S3_ENDPOINT: endpoint,
      S3_BUCKET: "bench",
      S3_REGION: "us-east-1",
      S3_ACCESS_KEY_ID: "bench",
      S3_SECRET_ACCESS_KEY: "bench",
    },
    pid: child.pid!,
    stop: async () => {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** Save structure → converted, through the API (polling the system every 50 ms). */
async function conversionRun(server: Server, token: string, smiles: string) {
  const call = api(server.origin, token);
  const { id } = await call("POST", "/systems", { name: "Bench SMILES", description: "", origin: "smiles" });
  const started = performance.now();
  await call("POST", `/systems/${id}/smiles`, { smiles });
  for (;;) {
    const system = await call("GET", `/systems/${id}`);
    const status = system.system_data.status;
    if (status === "converted")
      return { seconds: (performance.now() - started) / 1000, atoms: system.system_data.structure.atoms };
    if (status === "failed" || status === "error") throw new Error(JSON.stringify(system.system_data.problem));
    await sleep(50);
  }
}

/** The engine alone on the same SMILES (a process per job, as the runner starts it). */
function engineRun(smiles: string): number {
  const dir = mkdtempSync(join(work, "engine-"));
  writeFileSync(join(dir, "job.json"), JSON.stringify({ smiles }));
  const started = performance.now();
  const result = spawnSync(PYTHON, [
    "-m",
    "polyforge_engine",
    "convert-smiles",
    "--input",
    join(dir, "job.json"),
    "--workdir",
    dir,
  ]);
  if (result.status !== 0) throw new Error(result.stderr.toString());
  return (performance.now() - started) / 1000;
}

const MOLECULES = {
  aspirin: "CC(=O)Oc1ccccc1C(=O)O",
  "PEG-66 (199 heavy atoms)": `O${"CCO".repeat(66)}`,
};

type Measurement = Record<string, number>;
type Round = Record<string, unknown>;

/** In turns (bare, baseline, this code) so that a change in the machine's load falls on all of them. */
async function uploadRounds(jwksFile: string, token: string, file: string, size: number): Promise<Round[]> {
  const rounds: Round[] = [];
  for (let round = 0; round < runs; round++) {
    const row: Round = {};
    for (const digest of peerDigests) {
      const name = digest === "md5" ? "bare" : `bare_${digest}`;
      row[name] = await bareRun(file, size, digest);
      console.log(name, row[name]);
    }
    for (const [name, root] of [...baselines, ["local", ROOT] as const]) {
      const flags = name === "local" ? localNodeFlags : [];
      const server = await startServer({ BENCH_RUN_JOBS: "0" }, jwksFile, root, flags);
      row[name] = { root, ...(await uploadRun(server, token, file, size)) };
      console.log(name, row[name]);
      await server.stop();
    }
    rounds.push(row);
  }
  return rounds;
}

/** Each target's figures as the median over the rounds (non-numbers from the first round). */
function medians(rounds: Round[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of ["bare", "bare_crc32", ...baselines.map(([name]) => name), "local"]) {
    const measured = rounds.flatMap((row) => (row[name] ? [row[name] as Measurement] : []));
    if (measured.length === 0) continue;
    const medianOf = (key: string) =>
      typeof measured[0]![key] === "number" ? median(measured.map((m) => m[key]!)) : measured[0]![key];
    out[name] = Object.fromEntries(Object.keys(measured[0]!).map((key) => [key, medianOf(key)]));
  }
  return out;
}

/** One line a measurement: MB/s of the parts, its ratio to the MD5 and CRC-32 peers of its round. */
function printRounds(rounds: Round[]): void {
  for (const [index, row] of rounds.entries()) {
    const bare = (name: string) => (row[name] as { upload_mb_s?: number } | undefined)?.upload_mb_s;
    for (const [name, value] of Object.entries(row)) {
      const m = value as Measurement;
      const ratio = (peer: string) => (bare(peer) ? (m.upload_mb_s! / bare(peer)!).toFixed(2) : "-");
      const cpu = m.server_cpu_parts_s ?? m.server_cpu_s;
      const rss = m.rss_over_idle_mb === undefined ? "" : ` rss+${m.rss_over_idle_mb.toFixed(1)}MB`;
      console.log(
        `round ${index + 1} ${name.padEnd(10)} load ${m.load_1m!.toFixed(1).padStart(5)}` +
          ` ${m.upload_mb_s!.toFixed(1).padStart(6)} MB/s vs md5 peer ${ratio("bare")} vs crc32 peer ${ratio("bare_crc32")}` +
          ` cpu ${cpu!.toFixed(2)}s${rss}`,
      );
    }
  }
}

/** The same upload through the app with the S3 protocol (moto): parts go to moto by presigned URLs. */
async function s3Run(jwksFile: string, token: string, file: string, size: number): Promise<Record<string, unknown>> {
  const moto = await startMoto();
  const s3 = await startServer({ ...moto.env, BENCH_RUN_JOBS: "0" }, jwksFile);
  const result = { ...(await uploadRun(s3, token, file, size)), moto_rss_mb: rssMb(moto.pid) };
  console.log("s3", result);
  await s3.stop();
  await moto.stop();
  return result;
}

/** Save structure → validated, through the API and the engine alone, per molecule. */
async function conversionTimes(jwksFile: string, token: string): Promise<Record<string, unknown>> {
  const jobs = await startServer({}, jwksFile);
  const conversions: Record<string, unknown> = {};
  for (const [name, smiles] of Object.entries(MOLECULES)) {
    const api: number[] = [];
    const engine: number[] = [];
    let atoms = 0;
    // The large molecule's conformer search takes minutes: one run of each.
    for (let i = 0; i < (name === "aspirin" ? runs : 1); i++) {
      const run = await conversionRun(jobs, token, smiles);
      api.push(run.seconds);
      atoms = run.atoms;
      engine.push(engineRun(smiles));
    }
    conversions[name] = {
      atoms,
      api_s: api,
      engine_s: engine,
      api_median_s: median(api),
      engine_median_s: median(engine),
    };
    console.log(name, conversions[name]);
  }
  await jobs.stop();
  return conversions;
}

async function main() {
  mkdirSync(OUT, { recursive: true });
  const { jwksFile, token } = await signer();
  const size = sizeMb * MB;
  const file = join(work, "bench.pdb");
  await makeFile(file, sizeMb);
  const results: Record<string, unknown> = {
    date: new Date().toISOString(),
    in_flight: IN_FLIGHT,
    commit: spawnSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT }).stdout.toString().trim(),
    machine: `${spawnSync("uname", ["-sr"]).stdout.toString().trim()}, ${(await import("node:os")).cpus().length} cores`,
  };
  const rounds = await uploadRounds(jwksFile, token, file, size);
  Object.assign(results, { rounds }, medians(rounds));
  printRounds(rounds);
  if (!skipS3) results.s3 = await s3Run(jwksFile, token, file, size);
  await rm(file, { force: true });
  if (!skipConversions) results.conversions = await conversionTimes(jwksFile, token);
  writeFileSync(join(OUT, outName), JSON.stringify(results, null, 2));
  await rm(work, { recursive: true, force: true });
  if (existsSync(join(OUT, outName))) console.log(`written ${join(OUT, outName)}`);
}

main().catch(async (err) => {
  console.error(err);
  await rm(work, { recursive: true, force: true });
  process.exit(1);
});
