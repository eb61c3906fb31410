/**
 * Slow clients and disk filling (issue 37's attacks), against the real server of the tree it runs
 * in (bench/hardening/attack-server.ts, a child process). One JSON line with every figure:
 *
 * - token_stall, form_stall: a POST to the token endpoint / the sign-in form announcing 1000 bytes
 *   and sending 10: seconds until the server closed it (null: still open at STALL_CAP seconds).
 * - part_stalls: 300 part PUTs announcing 5 MB and sending 10 bytes (30 from each of ten loopback
 *   addresses): how many the server closed, and when the last went.
 * - moving_part: a 5 MB part sent in 64 slices 0.7 s apart (45 s, longer than the request
 *   timeout): the server's answer.
 * - descriptors: the server under `ulimit -n 1024`, 1,100 silent token requests from 127.0.0.1,
 *   then GET /api/health from 127.0.0.2: its status (or error) and time.
 * - parts_for_6mb: an upload begun for 6 MB, then parts 1…30 of 6 MB each: the statuses, and the
 *   bytes the store holds for it.
 * - disk_400mb: the server's data on a 400 MB tmpfs, one upload begun for 20 MB, then 6 MB parts
 *   1…100 until the first refusal: bytes stored, the statuses; then the disk filled and a valid part
 *   sent to another upload: its status (a full disk).
 *
 * Run as root (a private mount namespace for the tmpfs): compare.sh runs it under `unshare -m`.
 *
 *   MODE=attacks bench/hardening/compare.sh [before] [after]
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../../apps/server/test/support/s3-server";
import { TestIssuer, userClaims } from "../../apps/server/test/support/tokens";

const STALL_CAP = Number(process.env.STALL_CAP ?? 90);
const MB = 1024 * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Server {
  port: number;
  dataDir: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

async function startServer(dataDir: string, env: Record<string, string> = {}, nofile?: number): Promise<Server> {
  const port = await freePort();
  const args = ["--import", "tsx", "bench/hardening/attack-server.ts"];
  const [command, argv] = nofile
    ? ["prlimit", [`--nofile=${nofile}:${nofile}`, "--", process.execPath, ...args]]
    : [process.execPath, args];
  const child = spawn(command, argv, {
    env: {
      ...process.env,
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      POLYFORGE_DATA_DIR: dataDir,
      LOG_LEVEL: "fatal",
      WEB_DIST_DIR: join(dataDir, "no-web"),
      // Hundreds of uploads begun by one user in a minute: not what is measured.
      POLYFORGE_WRITES_PER_MINUTE: "100000",
      ...env,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("listening")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`server exited ${code}`)));
  });
  return {
    port,
    dataDir,
    child,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGKILL");
      await exited;
    },
  };
}

interface Held {
  socket: Socket;
  /** Seconds from the connection to the server closing it, and the status line it sent. */
  closed: Promise<{ seconds: number; status: string }>;
  /** Seconds from the connection to the server's first answer, and its status line. */
  answered: Promise<{ seconds: number; status: string }>;
}

function hold(port: number, text: string, localAddress = "127.0.0.1"): Promise<Held> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect({ port, host: "127.0.0.1", localAddress });
    let received = "";
    const ended = () => ({ seconds: (performance.now() - started) / 1000, status: received.split("\r\n")[0] ?? "" });
    socket.on("error", () => {});
    const answered = new Promise<{ seconds: number; status: string }>((done) =>
      socket.on("data", (chunk) => {
        received += chunk.toString();
        done(ended());
      }),
    );
    const closed = new Promise<{ seconds: number; status: string }>((done) => socket.on("close", () => done(ended())));
    socket.once("connect", () => {
      if (text) socket.write(text);
      resolve({ socket, closed, answered });
    });
    socket.once("error", reject);
  });
}

/** How each held connection ended within `capSeconds` (null: still open), then all closed. */
async function outcomes(held: Held[], capSeconds: number) {
  const cap = sleep(capSeconds * 1000).then(() => null);
  const results = await Promise.all(held.map((h) => Promise.race([h.closed, cap])));
  for (const h of held) h.socket.destroy();
  return results;
}

const stalledPost = (path: string, length = 1000, extra = "") =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n${extra}Content-Length: ${length}\r\n\r\ngrant_type`;

function health(
  port: number,
  localAddress: string,
  timeoutMs = 30_000,
): Promise<{ status: number | string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request({ port, host: "127.0.0.1", localAddress, path: "/api/health", agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, ms: Math.round(performance.now() - started) }));
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error("timeout")));
    req.on("error", (error) =>
      resolve({
        status: (error as NodeJS.ErrnoException).code ?? error.message,
        ms: Math.round(performance.now() - started),
      }),
    );
    req.end();
  });
}

/** Bytes of every file under `dir`. */
function bytesUnder(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  }
  return total;
}

/** A signed-in API client of a server trusting the benchmark's issuer. */
async function apiClient(port: number, issuer: TestIssuer) {
  const token = await issuer.sign(userClaims(), { expiresIn: "2h" });
  const base = `http://127.0.0.1:${port}/api/v2`;
  const call = async (method: string, path: string, body?: object) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, json: text ? JSON.parse(text) : undefined };
  };
  const newUpload = async (size: number) => {
    const system = await call("POST", "/systems", { name: "Attack", description: "", origin: "upload" });
    const begun = await call("POST", `/systems/${system.json.id}/upload/begin`, { file: "big.pdb", file_size: size });
    return { systemId: system.json.id as string, uploadId: begun.json.upload_id as string };
  };
  /** PUTs `body` as part `n` (asking for its URL first): the status, 0 when refused by a reset. */
  const putPart = async (upload: { systemId: string; uploadId: string }, n: number, body: Buffer) => {
    const url = await call(
      "GET",
      `/systems/${upload.systemId}/upload/upload_url?upload_id=${upload.uploadId}&part_number=${n}`,
    );
    if (url.status !== 200) return { status: url.status, etag: null };
    try {
      const response = await fetch(url.json.url, { method: "PUT", body });
      await response.arrayBuffer();
      return { status: response.status, etag: response.headers.get("etag") };
    } catch {
      return { status: 0, etag: null };
    }
  };
  return { call, newUpload, putPart };
}

/** The head of a raw PUT to a part URL announcing `length` bytes. */
function partPutHead(url: string, length: number): string {
  const { pathname, search } = new URL(url);
  return `PUT ${pathname}${search} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${length}\r\n\r\n`;
}

async function slowClients(root: string) {
  // The embedded sign-in, under `ulimit -n 1024` as in the finding.
  const server = await startServer(join(root, "signin"), {}, 1024);
  try {
    const stalls = await Promise.all([
      hold(server.port, stalledPost("/auth/realms/polyforge/protocol/openid-connect/token")),
      hold(server.port, stalledPost("/auth/realms/polyforge/interaction/00000000000000000000000000000000/login")),
    ]);
    const [token, form] = await outcomes(stalls, STALL_CAP);

    // 1,100 silent token requests from one address, then another address asks for /api/health.
    const silent: Held[] = [];
    let refusedAtConnect = 0;
    for (let i = 0; i < 1100; i++) {
      try {
        silent.push(await hold(server.port, stalledPost("/auth/realms/polyforge/protocol/openid-connect/token")));
      } catch {
        refusedAtConnect++;
      }
    }
    await sleep(2000);
    const healthOther = await health(server.port, "127.0.0.2");
    const stillOpen = (
      await Promise.all(silent.map((h) => Promise.race([h.closed.then(() => false), sleep(100).then(() => true)])))
    ).filter(Boolean).length;
    for (const h of silent) h.socket.destroy();
    return {
      token_stall: token,
      form_stall: form,
      descriptors: { health_from_other_address: healthOther, silent_still_open: stillOpen, refusedAtConnect },
    };
  } finally {
    await server.stop();
  }
}

async function slowParts(root: string, issuer: TestIssuer, jwksFile: string) {
  const server = await startServer(join(root, "parts"), { BENCH_JWKS_FILE: jwksFile, BENCH_ISSUER: issuer.issuer });
  try {
    const api = await apiClient(server.port, issuer);
    // 300 stalled part PUTs, 30 from each of ten addresses.
    const stalled: Held[] = [];
    for (let i = 0; i < 300; i++) {
      const upload = await api.newUpload(5 * MB);
      const url = await api.call(
        "GET",
        `/systems/${upload.systemId}/upload/upload_url?upload_id=${upload.uploadId}&part_number=1`,
      );
      const head = partPutHead(url.json.url, 5 * MB);
      stalled.push(await hold(server.port, `${head}0123456789`, `127.0.0.${2 + (i % 10)}`));
    }
    // Meanwhile one honest slow part: 5 MB at ~110 KB/s from its own address.
    const moving = (async () => {
      const upload = await api.newUpload(5 * MB);
      const url = await api.call(
        "GET",
        `/systems/${upload.systemId}/upload/upload_url?upload_id=${upload.uploadId}&part_number=1`,
      );
      const h = await hold(server.port, partPutHead(url.json.url, 5 * MB), "127.0.0.20");
      const chunk = Buffer.alloc((5 * MB) / 64, 65);
      for (let i = 0; i < 64 && !h.socket.destroyed; i++) {
        h.socket.write(chunk);
        await sleep(700);
      }
      const answer = await Promise.race([h.answered, sleep(30_000).then(() => null)]);
      h.socket.destroy();
      return answer;
    })();
    const ends = await outcomes(stalled, STALL_CAP);
    const closed = ends.filter((end) => end !== null);
    return {
      part_stalls: {
        sent: stalled.length,
        closed_by_server: closed.length,
        last_closed_after_s: closed.length ? Math.max(...closed.map((end) => end!.seconds)) : null,
        statuses: [...new Set(closed.map((end) => end!.status))],
      },
      moving_part: await moving,
    };
  } finally {
    await server.stop();
  }
}

async function diskFilling(root: string, issuer: TestIssuer, jwksFile: string) {
  // 30 parts of 6 MB for a 6 MB upload, on the ordinary disk.
  const plain = await startServer(join(root, "plain"), { BENCH_JWKS_FILE: jwksFile, BENCH_ISSUER: issuer.issuer });
  let partsFor6mb: Record<string, unknown>;
  try {
    const api = await apiClient(plain.port, issuer);
    const upload = await api.newUpload(6 * MB);
    const attack = Buffer.alloc(6 * MB, 66);
    const statuses: number[] = [];
    for (let n = 1; n <= 30; n++) statuses.push((await api.putPart(upload, n, attack)).status);
    partsFor6mb = {
      statuses: countOf(statuses),
      stored_bytes: bytesUnder(join(plain.dataDir, "files", ".multipart", upload.uploadId)),
    };
  } finally {
    await plain.stop();
  }

  // The server's data on a 400 MB disk of its own.
  const small = join(root, "small");
  execFileSync("mkdir", ["-p", small]);
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=400m", "tmpfs", small]);
  const server = await startServer(small, { BENCH_JWKS_FILE: jwksFile, BENCH_ISSUER: issuer.issuer });
  try {
    const api = await apiClient(server.port, issuer);
    const upload = await api.newUpload(20 * MB);
    const attack = Buffer.alloc(6 * MB, 67);
    const statuses: number[] = [];
    for (let n = 1; n <= 100; n++) {
      const { status } = await api.putPart(upload, n, attack);
      statuses.push(status);
      if (status !== 200 && statuses.filter((s) => s !== 200).length >= 5) break;
    }
    const storedForUpload = bytesUnder(join(small, "files", ".multipart", upload.uploadId));
    // The upload still completes with its own four parts.
    const file = Buffer.alloc(20 * MB, 68);
    const honest = [];
    for (let n = 1; n <= 4; n++) honest.push(await api.putPart(upload, n, file.subarray((n - 1) * 5 * MB, n * 5 * MB)));
    const complete = await api.call("POST", `/systems/${upload.systemId}/upload/complete`, {
      upload_id: upload.uploadId,
      parts: honest.map((part, i) => ({ part_number: i + 1, etag: part.etag ?? "none" })),
    });
    // The disk filled by something else: a valid part of another upload.
    const other = await api.newUpload(5 * MB);
    try {
      writeFileSync(join(small, "filler"), Buffer.alloc(400 * MB));
    } catch {
      // full: as meant
    }
    const onFullDisk = await api.putPart(other, 1, Buffer.alloc(5 * MB, 69));
    return {
      parts_for_6mb: partsFor6mb,
      disk_400mb: {
        statuses: countOf(statuses),
        stored_bytes: storedForUpload,
        honest_parts: honest.map((part) => part.status),
        complete_status: complete.status,
        part_on_full_disk: { status: onFullDisk.status },
      },
    };
  } finally {
    await server.stop();
    execFileSync("umount", [small]);
  }
}

function countOf(statuses: number[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

const root = mkdtempSync(join(tmpdir(), "polyforge-attacks-"));
try {
  const issuer = await TestIssuer.create();
  const jwksFile = join(root, "jwks.json");
  writeFileSync(jwksFile, JSON.stringify(issuer.keys().publicJwks));
  const [slow, parts] = [await slowClients(root), await slowParts(root, issuer, jwksFile)];
  const disk = await diskFilling(root, issuer, jwksFile);
  process.stdout.write(
    `${JSON.stringify({ database: "pglite", stall_cap_s: STALL_CAP, ...slow, ...parts, ...disk })}\n`,
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
