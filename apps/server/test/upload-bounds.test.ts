import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { once } from "node:events";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CommonErrors } from "@polyforge/contracts/errors";
import { MB } from "@polyforge/contracts/uploads";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, buildApp } from "../src/app";
import { loadConfig } from "../src/platform/config";
import type { DatabaseTarget } from "../src/platform/db/database";
import { newRunnerId } from "../src/platform/jobs/liveness";
import { createTestDatabase } from "./support/database";
import { freePort, presignedPutAccepts } from "./support/s3-server";
import { databaseAndStoreKinds, useS3Server } from "./support/stores";
import { TestIssuer, userClaims } from "./support/tokens";

/**
 * What one upload may put on the disk, for both kinds of upload (a system's structure file, a
 * potential's .top): no part past the file's last, none larger than its share, whatever is sent at
 * once; a refused part loses nothing stored; archive and idleness end an upload; a full disk answers
 * 507; two completes at once answer one 200 and one 404/409; what a killed server left is tidied at
 * start and on takeback; no control character in a stored file name.
 */

type UploadKind = "structure" | "topology";
const PART = 5 * MB;
const md5 = (data: Buffer) => createHash("md5").update(data).digest("hex");

/** Three waters (valid for validate-structure), padded with REMARK lines to `bytes` at least. */
function watersPdb(padTo = 0): Buffer {
  const atom = (serial: number, name: string, resSeq: number, xyz: number[], element: string) => {
    const [x, y, z] = xyz.map((v) => v.toFixed(3).padStart(8));
    return `HETATM${String(serial).padStart(5)}  ${name.padEnd(3)} HOH A${String(resSeq).padStart(4)}    ${x}${y}${z}  1.00  0.00          ${element.padStart(2)}`;
  };
  const lines: string[] = [];
  const remark = `REMARK 999 ${"-".repeat(68)}`;
  for (let size = 0; size < padTo; size += remark.length + 1) lines.push(remark);
  lines.push("CRYST1   20.000   20.000   20.000  90.00  90.00  90.00 P 1           1");
  let serial = 1;
  for (let w = 0; w < 3; w++) {
    const o = [2 + 4 * w, 2, 2];
    lines.push(atom(serial++, "O", w + 1, o, "O"));
    lines.push(atom(serial++, "H1", w + 1, [o[0]! + 0.957, o[1]!, o[2]!], "H"));
    lines.push(atom(serial++, "H2", w + 1, [o[0]! - 0.24, o[1]! + 0.927, o[2]!], "H"));
  }
  lines.push("END");
  return Buffer.from(`${lines.join("\n")}\n`);
}

const s3 = useS3Server();

describe.each(databaseAndStoreKinds())("upload bounds on %s with the %s file store", (dbKind, storeKind) => {
  const issuer = TestIssuer.create();
  let target: DatabaseTarget;
  let dropDatabase: () => Promise<void> = async () => {};
  let dataDir: string;
  let app: App;
  /** One port for every start, so part URLs handed out before a restart still reach the server. */
  let port: number;
  const bucket = `bounds-${dbKind}-${Math.random().toString(36).slice(2, 8)}`;
  const local = storeKind === "local";

  async function start(runJobs = false): Promise<App> {
    const config = loadConfig({
      LOG_LEVEL: process.env.DEBUG_LOG ?? "silent",
      POLYFORGE_DATA_DIR: dataDir,
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      WEB_DIST_DIR: join(tmpdir(), "polyforge-test-no-web"),
      ...(storeKind === "s3" ? s3().env(bucket) : {}),
    });
    const started = await buildApp({ config, database: target, issuerKeys: (await issuer).keys(), runJobs });
    await started.listen({ port, host: "127.0.0.1" });
    return started;
  }

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "polyforge-bounds-"));
    port = await freePort();
    if (dbKind === "pglite") {
      target = { kind: "pglite", dataDir: join(dataDir, "pg") };
    } else {
      const database = await createTestDatabase("postgres");
      target = database.target;
      dropDatabase = database.drop;
    }
    if (storeKind === "s3") await s3().createBucket(bucket);
    app = await start();
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await dropDatabase();
    await rm(dataDir, { recursive: true, force: true });
  });

  async function signIn() {
    const token = await (await issuer).sign(userClaims(), { expiresIn: "1h" });
    const call = async (method: "GET" | "POST" | "DELETE", url: string, payload?: object) => {
      const response = await app.inject({
        method,
        url: `/api/v2${url}`,
        headers: { authorization: `Bearer ${token}` },
        ...(payload ? { payload } : {}),
      });
      // biome-ignore lint/suspicious/noExplicitAny: the tests read JSON bodies of many shapes.
      const body: any = response.body ? response.json() : undefined;
      return { status: response.statusCode, body };
    };
    const expectCall = async (status: number, method: "GET" | "POST" | "DELETE", url: string, payload?: object) => {
      const response = await call(method, url, payload);
      expect(response.status, String(JSON.stringify(response.body)).slice(0, 500)).toBe(status);
      return response.body;
    };
    return { call, expectCall };
  }
  type User = Awaited<ReturnType<typeof signIn>>;

  const sqlRows = async <T>(query: ReturnType<typeof sql>) =>
    (await app.database.db.execute(query)) as unknown as { rows: T[] };

  async function uploadSystem(user: User, name = "Upload"): Promise<string> {
    return (await user.expectCall(201, "POST", "/systems", { name, description: "", origin: "upload" })).id;
  }

  /** A system whose structure counts as validated (set in the database: no engine needed here). */
  async function validSystem(user: User): Promise<string> {
    const id = await uploadSystem(user, "Valid");
    await app.database.db.execute(sql`UPDATE systems SET system_data = system_data
      || '{"status":"valid","file":"waters.pdb","file_size":10}'::jsonb WHERE id = ${id}`);
    return id;
  }

  /** Where an upload of this kind is sent: a new upload system, or a new uploaded potential. */
  async function uploadTarget(user: User, kind: UploadKind): Promise<{ base: string; file: string; systemId: string }> {
    if (kind === "structure") {
      const systemId = await uploadSystem(user);
      return { base: `/systems/${systemId}`, file: "waters.pdb", systemId };
    }
    const systemId = await validSystem(user);
    const potential = await user.expectCall(201, "POST", `/systems/${systemId}/potentials/`, {
      origin: "upload",
      name: "Uploaded",
      description: "",
    });
    return { base: `/systems/${systemId}/potentials/${potential.id}`, file: "waters.top", systemId };
  }

  async function begin(user: User, base: string, file: string, size: number): Promise<string> {
    return (await user.expectCall(200, "POST", `${base}/upload/begin`, { file, file_size: size })).upload_id;
  }

  const partUrl = (user: User, base: string, uploadId: string, partNumber: number) =>
    user.call("GET", `${base}/upload/upload_url?upload_id=${uploadId}&part_number=${partNumber}`);

  async function putPart(user: User, base: string, uploadId: string, partNumber: number, body: Buffer) {
    const { body: answer } = await partUrl(user, base, uploadId, partNumber);
    const response = await fetch(answer.url, { method: "PUT", body });
    const text = await response.text();
    return { status: response.status, etag: response.headers.get("etag"), text, url: answer.url as string };
  }

  async function storedBytes(user: User, base: string, uploadId: string): Promise<number> {
    const { parts } = await user.expectCall(200, "GET", `${base}/upload/parts?upload_id=${uploadId}`);
    return (parts as Array<{ size: number }>).reduce((sum, part) => sum + part.size, 0);
  }

  it.each<UploadKind>(["structure", "topology"])(
    "refuses %s parts past the last or larger than their share with 413, keeping what was stored",
    async (kind) => {
      const user = await signIn();
      const { base, file: fileName } = await uploadTarget(user, kind);
      const file = randomBytes(6 * MB);
      const uploadId = await begin(user, base, fileName, file.length);

      // Two parts: 5 MB and 1 MB. No URL for a third, in either store.
      const third = await partUrl(user, base, uploadId, 3);
      expect(third.status).toBe(413);
      expect(third.body.errors[0]).toMatchObject({
        error_code: CommonErrors.UPLOAD_PART_TOO_LARGE,
        args: { part_number: 3, parts: 2 },
      });
      const first = await putPart(user, base, uploadId, 1, file.subarray(0, PART));
      expect(first.status).toBe(200);

      // The attack that filled a disk: the 30 parts of 6 MB each that were stored for a 6 MB upload.
      const attack = randomBytes(6 * MB);
      const statuses: number[] = [];
      for (let n = 1; n <= 30; n++) {
        const url = await partUrl(user, base, uploadId, n);
        if (url.status !== 200) {
          statuses.push(url.status);
          continue;
        }
        if (local) {
          const response = await fetch(url.body.url, { method: "PUT", body: attack });
          statuses.push(response.status);
          if (response.status === 413) {
            expect(JSON.parse(await response.text()).errors[0].error_code).toBe(CommonErrors.UPLOAD_PART_TOO_LARGE);
          }
        } else {
          // S3 signs the part's share into the URL: a body of any other length is refused by S3
          // (moto does not check signatures, so the signature is checked here as S3 checks it).
          const share = n === 1 ? PART : MB;
          expect(new URL(url.body.url).searchParams.get("X-Amz-SignedHeaders")).toContain("content-length");
          expect(presignedPutAccepts(url.body.url, share)).toBe(true);
          expect(presignedPutAccepts(url.body.url, attack.length)).toBe(false);
          statuses.push(413);
        }
      }
      expect(statuses).toEqual(Array(30).fill(413));
      // Nothing was lost: the good part 1 is still the only one, and the upload completes.
      expect(await storedBytes(user, base, uploadId)).toBe(PART);
      const second = await putPart(user, base, uploadId, 2, file.subarray(PART));
      expect(second.status).toBe(200);
      expect(await storedBytes(user, base, uploadId)).toBe(file.length);
      await user.expectCall(200, "POST", `${base}/upload/complete`, {
        upload_id: uploadId,
        parts: [
          { part_number: 1, etag: first.etag },
          { part_number: 2, etag: second.etag },
        ],
      });
    },
    120_000,
  );

  it.each<UploadKind>(["structure", "topology"])(
    "answers two completes of one %s upload at once with one 200 and one 404 or 409",
    async (kind) => {
      const user = await signIn();
      for (let round = 0; round < 3; round++) {
        const { base, file: fileName } = await uploadTarget(user, kind);
        const file = watersPdb(PART + 1000);
        const uploadId = await begin(user, base, fileName, file.length);
        const parts = [
          await putPart(user, base, uploadId, 1, file.subarray(0, PART)),
          await putPart(user, base, uploadId, 2, file.subarray(PART)),
        ].map((part, index) => ({ part_number: index + 1, etag: part.etag }));
        const answers = await Promise.all(
          [0, 1].map(() => user.call("POST", `${base}/upload/complete`, { upload_id: uploadId, parts })),
        );
        const statuses = answers.map((answer) => answer.status).sort();
        expect(statuses[0], JSON.stringify(answers.map((a) => a.body))).toBe(200);
        expect([404, 409]).toContain(statuses[1]);
        const refused = answers.find((answer) => answer.status !== 200)!;
        expect(refused.body.errors[0].error_code).toMatch(/^SYSTEM\./);
      }
    },
    120_000,
  );

  it.each<UploadKind>(["structure", "topology"])("refuses control characters in a %s file's name", async (kind) => {
    const user = await signIn();
    const { base, file } = await uploadTarget(user, kind);
    const extension = file.slice(file.lastIndexOf("."));
    for (const name of [`a\r\nb${extension}`, `a\nb${extension}`, `a\tb${extension}`, `x\u202egdp${extension}`]) {
      const refused = await user.expectCall(400, "POST", `${base}/upload/begin`, { file: name, file_size: 10 });
      expect(refused.errors[0].args.message).toBe("A file name cannot contain control characters");
    }
    await user.expectCall(200, "POST", `${base}/upload/begin`, { file: `eau é 水 💧${extension}`, file_size: 10 });
  });

  it("aborts the uploads of an archived system: its file's and its potentials' .top", async () => {
    const user = await signIn();
    const structure = await uploadTarget(user, "structure");
    const topology = await uploadTarget(user, "topology");
    const sent: Array<{ base: string; systemId: string; url: string }> = [];
    for (const { base, file, systemId } of [structure, topology]) {
      const body = watersPdb();
      const uploadId = await begin(user, base, file, body.length);
      const part = await putPart(user, base, uploadId, 1, body);
      expect(part.status).toBe(200);
      sent.push({ base, systemId, url: part.url });
    }
    for (const { systemId } of sent) await user.expectCall(204, "DELETE", `/systems/${systemId}`);
    for (const { url } of sent) {
      // The part URLs handed out before lead nowhere now (moto answers them 500, S3 NoSuchUpload's 404).
      const late = await fetch(url, { method: "PUT", body: watersPdb() });
      if (local) expect(late.status).toBe(404);
      else expect(late.status).toBeGreaterThanOrEqual(400);
    }
    const rows = await sqlRows<{ status: string }>(
      sql`SELECT system_data->>'status' AS status FROM systems WHERE id = ${structure.systemId}`,
    );
    expect(rows.rows[0]?.status).toBe("pending_upload");
    const potentials = await sqlRows<{ status: string; upload_id: string | null }>(
      sql`SELECT status, upload_id FROM potentials WHERE system_id = ${topology.systemId}`,
    );
    expect(potentials.rows).toEqual([{ status: "pending_upload", upload_id: null }]);
  }, 120_000);

  it("aborts uploads idle past the part URLs' life at start and on its rounds, and keeps active ones", async () => {
    const user = await signIn();
    const idle = await Promise.all([uploadTarget(user, "structure"), uploadTarget(user, "topology")]);
    const active = await uploadTarget(user, "structure");
    const sent: Array<{ base: string; uploadId: string; url: string }> = [];
    for (const { base, file } of [...idle, active]) {
      const body = watersPdb();
      const uploadId = await begin(user, base, file, body.length);
      const part = await putPart(user, base, uploadId, 1, body);
      expect(part.status).toBe(200);
      sent.push({ base, uploadId, url: part.url });
    }
    // The last part URL of the idle two was handed out two hours ago.
    await app.database.db.execute(
      sql`UPDATE systems SET updated_at = now() - interval '2 hours' WHERE id = ${idle[0]!.systemId}`,
    );
    await app.database.db.execute(
      sql`UPDATE potentials SET updated_at = now() - interval '2 hours' WHERE system_id = ${idle[1]!.systemId}`,
    );
    await app.close();
    app = await start();
    for (const [index, { base, uploadId, url }] of sent.entries()) {
      const isIdle = index < 2;
      let parts = await user.call("GET", `${base}/upload/parts?upload_id=${uploadId}`);
      for (let i = 0; i < 100 && isIdle && parts.status === 200; i++) {
        await new Promise((r) => setTimeout(r, 100));
        parts = await user.call("GET", `${base}/upload/parts?upload_id=${uploadId}`);
      }
      expect(parts.status, `${base} ${JSON.stringify(parts.body)}`).toBe(isIdle ? 404 : 200);
      // The store's upload goes just after the row (a part may still land in between).
      let late = await fetch(url, { method: "PUT", body: watersPdb() });
      for (let i = 0; i < 100 && isIdle && late.status === 200; i++) {
        await new Promise((r) => setTimeout(r, 100));
        late = await fetch(url, { method: "PUT", body: watersPdb() });
      }
      const lateText = await late.text();
      if (local || !isIdle) expect(late.status, `${base} ${lateText}`).toBe(isIdle ? 404 : 200);
      // moto answers a part for an aborted upload 500 (S3 answers NoSuchUpload's 404).
      else expect(late.status).toBeGreaterThanOrEqual(400);
    }
  }, 180_000);

  it.runIf(local).each<UploadKind>(["structure", "topology"])(
    "answers a full disk with 507 for a %s part and complete, and keeps the upload",
    async (kind) => {
      const user = await signIn();
      const { base, file: fileName, systemId } = await uploadTarget(user, kind);
      const file = watersPdb(PART + 1000);
      const uploadId = await begin(user, base, fileName, file.length);
      const uploadDir = join(dataDir, "files", ".multipart", uploadId);
      const first = await putPart(user, base, uploadId, 1, file.subarray(0, PART));
      expect(first.status).toBe(200);
      // Part 2 is written in place into the upload's assembly file: that file is a full disk.
      renameSync(join(uploadDir, "assembly"), join(uploadDir, "assembly.kept"));
      symlinkSync("/dev/full", join(uploadDir, "assembly"));
      const full = await putPart(user, base, uploadId, 2, file.subarray(PART));
      expect(full.status).toBe(507);
      expect(JSON.parse(full.text).errors[0].error_code).toBe(CommonErrors.STORAGE_FULL);
      rmSync(join(uploadDir, "assembly"));
      renameSync(join(uploadDir, "assembly.kept"), join(uploadDir, "assembly"));
      expect(await storedBytes(user, base, uploadId)).toBe(PART);
      // Part 1 again (now a file of its own) makes complete copy the parts into the object, whose
      // temporary name is a full disk.
      const again = await putPart(user, base, uploadId, 1, file.subarray(0, PART));
      const second = await putPart(user, base, uploadId, 2, file.subarray(PART));
      const object =
        kind === "structure"
          ? join(dataDir, "files", "molecular-systems", systemId, "upload.pdb")
          : join(dataDir, "files", "potentials", base.split("/").at(-1)!, "upload.top");
      mkdirSync(join(object, ".."), { recursive: true });
      symlinkSync("/dev/full", `${object}.partial`);
      const parts = [
        { part_number: 1, etag: again.etag },
        { part_number: 2, etag: second.etag },
      ];
      const refused = await user.call("POST", `${base}/upload/complete`, { upload_id: uploadId, parts });
      expect(refused.status).toBe(507);
      expect(refused.body.errors[0].error_code).toBe(CommonErrors.STORAGE_FULL);
      // Room again: the same complete succeeds with every part it had.
      expect(existsSync(`${object}.partial`)).toBe(false);
      await user.expectCall(200, "POST", `${base}/upload/complete`, { upload_id: uploadId, parts });
      expect(md5(readFileSync(object))).toBe(md5(file));
    },
    120_000,
  );

  it.runIf(local)(
    "tidies at start what a killed server left: part files being written, a complete cut short, work directories",
    async () => {
      const user = await signIn();
      const { base, file: fileName } = await uploadTarget(user, "structure");
      const file = watersPdb();
      const uploadId = await begin(user, base, fileName, file.length);
      const part = await putPart(user, base, uploadId, 1, file);
      const uploads = join(dataDir, "files", ".multipart");
      // A part a killed server was writing an hour ago, and one another server is writing now.
      const stale = join(uploads, uploadId, ".00001.aaaaaaaaaaaa.tmp");
      const fresh = join(uploads, uploadId, ".00001.bbbbbbbbbbbb.tmp");
      writeFileSync(stale, "half a part");
      writeFileSync(fresh, "half a part");
      const hourAgo = new Date(Date.now() - 3600_000);
      utimesSync(stale, hourAgo, hourAgo);
      // A second upload, killed while completing (its directory taken by a process that is gone).
      const other = await uploadTarget(user, "structure");
      const otherId = await begin(user, other.base, other.file, file.length);
      const otherPart = await putPart(user, other.base, otherId, 1, file);
      const gone = spawn("true");
      await once(gone, "exit");
      renameSync(join(uploads, otherId), join(uploads, `.completing-${otherId}.${gone.pid}`));
      // Work directories of a dead runner (a killed server's attempt) and of a live one.
      const jobs = join(dataDir, "jobs");
      const deadRunner = newRunnerId().replace(/:\d+:/, `:${gone.pid}:`);
      const liveRunner = newRunnerId().replace(/:\d+:/, `:${process.ppid}:`);
      for (const [name, holder] of [
        ["structure-killed-1", deadRunner],
        ["structure-alive-1", liveRunner],
      ] as const) {
        mkdirSync(join(jobs, name), { recursive: true });
        writeFileSync(join(jobs, name, ".polyforge-runner"), holder);
        writeFileSync(join(jobs, name, "structure.gro"), "left behind");
      }

      await app.close();
      app = await start();
      expect(readdirSync(join(uploads, uploadId)).filter((name) => name.endsWith(".tmp"))).toEqual([
        ".00001.bbbbbbbbbbbb.tmp",
      ]);
      // The complete cut short: the upload is back, and completes.
      expect(readdirSync(uploads).filter((name) => name.startsWith(".completing"))).toEqual([]);
      await user.expectCall(200, "POST", `${other.base}/upload/complete`, {
        upload_id: otherId,
        parts: [{ part_number: 1, etag: otherPart.etag }],
      });
      await user.expectCall(200, "POST", `${base}/upload/complete`, {
        upload_id: uploadId,
        parts: [{ part_number: 1, etag: part.etag }],
      });
      for (let i = 0; i < 50 && existsSync(join(jobs, "structure-killed-1")); i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(existsSync(join(jobs, "structure-killed-1"))).toBe(false);
      expect(existsSync(join(jobs, "structure-alive-1"))).toBe(true);
    },
    180_000,
  );

  it.runIf(local)(
    "removes the killed attempt's work directory when its job is taken back",
    async () => {
      app = await restartWithJobs();
      const user = await signIn();
      const { base, file: fileName, systemId } = await uploadTarget(user, "structure");
      const file = watersPdb();
      const uploadId = await begin(user, base, fileName, file.length);
      const part = await putPart(user, base, uploadId, 1, file);
      // The job is held by a runner that died (on this machine) before the validation ran; its
      // attempt left a work directory. The holding is written before complete queues it, so no
      // runner of this app takes it first.
      const gone = spawn("true");
      await once(gone, "exit");
      const deadRunner = newRunnerId().replace(/:\d+:/, `:${gone.pid}:`);
      await app.processing.structures.stop();
      await user.expectCall(200, "POST", `${base}/upload/complete`, {
        upload_id: uploadId,
        parts: [{ part_number: 1, etag: part.etag }],
      });
      const [job] = (
        await sqlRows<{ id: string }>(sql`UPDATE structure_jobs SET status = 'running', lease_owner = ${deadRunner},
          lease_expires_at = now() + interval '1 hour', attempts = 1 WHERE system_id = ${systemId} RETURNING id`)
      ).rows;
      const killed = join(dataDir, "jobs", `structure-${job!.id}-1`);
      mkdirSync(killed, { recursive: true });
      writeFileSync(join(killed, ".polyforge-runner"), deadRunner);
      writeFileSync(join(killed, "waters.pdb"), file);
      app.processing.structures.start();
      for (let i = 0; i < 600; i++) {
        const { body } = await user.call("GET", `/systems/${systemId}`);
        if (["valid", "invalid", "error"].includes(body.system_data.status)) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      const { body } = await user.call("GET", `/systems/${systemId}`);
      expect(body.system_data.status).toBe("valid");
      expect(existsSync(killed)).toBe(false);
    },
    180_000,
  );

  async function restartWithJobs(): Promise<App> {
    await app.close();
    return start(true);
  }
});
