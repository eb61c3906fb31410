import { createHash, createHmac } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NotificationMessage } from "@polyforge/contracts/notifications";
import { fileTooLargeMessage, MB, unsupportedFileTypeMessage } from "@polyforge/contracts/uploads";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, buildApp } from "../src/app";
import { loadConfig } from "../src/platform/config";
import type { DatabaseTarget } from "../src/platform/db/database";
import { users } from "../src/platform/identity/schema";
import { createTestDatabase } from "./support/database";
import { localPartEtag } from "./support/etag";
import { openNotifications } from "./support/notifications";
import { freePort } from "./support/s3-server";
import { databaseAndStoreKinds, useS3Server } from "./support/stores";
import { TestIssuer, userClaims } from "./support/tokens";
import { waitUntil } from "./support/wait";

const PART = 5 * MB;

/** A PDB line in its columns (HETATM, serial, name, residue, chain A, coordinates, element). */
function atomLine(serial: number, name: string, residue: string, resSeq: number, xyz: number[], element: string) {
  const [x, y, z] = xyz.map((v) => v.toFixed(3).padStart(8));
  return `HETATM${String(serial).padStart(5)}  ${name.padEnd(3)} ${residue.padStart(3)} A${String(resSeq).padStart(4)}    ${x}${y}${z}  1.00  0.00          ${element.padStart(2)}`;
}

/** Three water molecules 4 Å apart, after `remarkLines` REMARK lines (to make a file of several
 * parts); `brokenLine` replaces that line (1-based) with a coordinate that is not a number. */
function watersPdb(remarkLines: number, brokenLine?: number): Buffer {
  const lines: string[] = [];
  for (let i = 0; i < remarkLines; i++)
    lines.push(`REMARK 999 padding line ${String(i).padStart(8, "0")} ${"-".repeat(50)}`);
  lines.push("CRYST1   20.000   20.000   20.000  90.00  90.00  90.00 P 1           1");
  let serial = 1;
  for (let w = 0; w < 3; w++) {
    const o = [2 + 4 * w, 2, 2];
    lines.push(atomLine(serial++, "O", "HOH", w + 1, o, "O"));
    lines.push(atomLine(serial++, "H1", "HOH", w + 1, [o[0]! + 0.957, o[1]!, o[2]!], "H"));
    lines.push(atomLine(serial++, "H2", "HOH", w + 1, [o[0]! - 0.24, o[1]! + 0.927, o[2]!], "H"));
  }
  lines.push("END");
  if (brokenLine !== undefined) {
    const original = lines[brokenLine - 1]!;
    lines[brokenLine - 1] = `${original.slice(0, 30)}   abc.de${original.slice(39)}`;
  }
  return Buffer.from(`${lines.join("\n")}\n`);
}

const md5 = (data: Buffer) => createHash("md5").update(data).digest("hex");

interface Harness {
  app: App;
  dataDir: string;
  port: number;
  origin: string;
}

/** moto's S3 server for the suites on the S3 store (each suite runs on every database and store). */
const s3 = useS3Server();

describe.each(databaseAndStoreKinds())("molecular systems on %s with the %s file store", (dbKind, storeKind) => {
  const issuer = TestIssuer.create();
  let target: DatabaseTarget;
  let dropDatabase: () => Promise<void>;
  let dataDir: string;
  let harness: Harness;
  const bucket = `uploads-${dbKind}-${Math.random().toString(36).slice(2, 8)}`;

  /** The app on this suite's database, data directory and store, listening on a loopback port
   * (the local store's part URLs are absolute, under PUBLIC_URL, as S3's are). */
  async function start(runJobs = true): Promise<Harness> {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const config = loadConfig({
      LOG_LEVEL: "silent",
      POLYFORGE_DATA_DIR: dataDir,
      PUBLIC_URL: origin,
      WEB_DIST_DIR: join(tmpdir(), "polyforge-test-no-web"),
      ...(storeKind === "s3" ? s3().env(bucket) : {}),
    });
    const app = await buildApp({ config, database: target, issuerKeys: (await issuer).keys(), runJobs });
    await app.listen({ port, host: "127.0.0.1" });
    return { app, dataDir, port, origin };
  }

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "h1-molsys-"));
    if (dbKind === "pglite") {
      // On disk, so that the app can be restarted on the same data.
      target = { kind: "pglite", dataDir: join(dataDir, "pg") };
      dropDatabase = async () => {};
    } else {
      const database = await createTestDatabase("postgres");
      target = database.target;
      dropDatabase = database.drop;
    }
    if (storeKind === "s3") await s3().createBucket(bucket);
    harness = await start();
  }, 120_000);
  afterAll(async () => {
    await harness?.app.close();
    await dropDatabase?.();
    await rm(dataDir, { recursive: true, force: true });
  });

  async function signIn() {
    const claims = userClaims();
    const token = await (await issuer).sign(claims, { expiresIn: "1h" });
    const call = async (method: "GET" | "POST" | "PUT" | "DELETE", url: string, payload?: object) => {
      const response = await harness.app.inject({
        method,
        url: `/api/v2${url}`,
        headers: { authorization: `Bearer ${token}` },
        ...(payload ? { payload } : {}),
      });
      const isJson = response.headers["content-type"]?.toString().includes("json");
      // biome-ignore lint/suspicious/noExplicitAny: the tests read JSON bodies of many shapes.
      const body: any = isJson && response.body ? response.json() : response.rawPayload;
      return { status: response.statusCode, body, headers: response.headers };
    };
    const expectCall = async (
      status: number,
      method: "GET" | "POST" | "PUT" | "DELETE",
      url: string,
      payload?: object,
    ) => {
      const response = await call(method, url, payload);
      expect(response.status, JSON.stringify(response.body).slice(0, 500)).toBe(status);
      return response.body;
    };
    return { token, claims, call, expectCall };
  }

  /** The owner's socket, collecting every message. */
  const listen = (token: string) =>
    openNotifications(`ws://127.0.0.1:${harness.port}/api/v2/notifications/?token=${token}`);

  type User = Awaited<ReturnType<typeof signIn>>;

  async function createSystem(user: User, origin: "upload" | "smiles", name = `System ${origin}`) {
    const { id } = await user.expectCall(201, "POST", "/systems", { name, description: "from a test", origin });
    return id as string;
  }

  async function putPart(user: User, systemId: string, uploadId: string, partNumber: number, body: Buffer) {
    const { url } = await user.expectCall(
      200,
      "GET",
      `/systems/${systemId}/upload/upload_url?upload_id=${encodeURIComponent(uploadId)}&part_number=${partNumber}`,
    );
    const response = await fetch(url, { method: "PUT", body });
    expect(response.status, await response.clone().text()).toBe(200);
    const etag = response.headers.get("etag");
    // S3 answers the part's MD5; the embedded store its CRC-32 and length (localEtag).
    expect(etag).toBe(`"${storeKind === "s3" ? md5(body) : localPartEtag(body)}"`);
    return { url: url as string, etag: etag! };
  }

  /** Begins an upload of `file` under `fileName`, sends it as one part and completes it. */
  async function uploadInOnePart(user: User, systemId: string, fileName: string, file: Buffer) {
    const { upload_id } = await user.expectCall(200, "POST", `/systems/${systemId}/upload/begin`, {
      file: fileName,
      file_size: file.length,
    });
    const part = await putPart(user, systemId, upload_id, 1, file);
    await user.expectCall(200, "POST", `/systems/${systemId}/upload/complete`, {
      upload_id,
      parts: [{ part_number: 1, etag: part.etag }],
    });
  }

  async function waitForStatus(user: User, systemId: string, statuses: string[], timeoutMs = 90_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const system = await user.expectCall(200, "GET", `/systems/${systemId}`);
      if (statuses.includes(system.system_data.status)) return system;
      if (Date.now() > deadline) throw new Error(`still ${system.system_data.status}, not ${statuses.join("/")}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  const statusesOf = (messages: NotificationMessage[], systemId: string, type: string) =>
    messages.filter((m) => m.system_id === systemId && m.message_type === type).map((m) => m.status);

  it.runIf(storeKind === "local")("documents its calls in the OpenAPI document", async () => {
    const doc = (await harness.app.inject({ method: "GET", url: "/api/docs/openapi.json" })).json();
    const op = (path: string, method: string) => doc.paths[`/api/v2${path}`]?.[method];
    expect(Object.keys(op("/systems/{systemId}/upload/complete", "post").responses)).toEqual(
      expect.arrayContaining(["200", "400", "404", "409"]),
    );
    // 204 and the part PUT have no body; the part PUT needs no token and answers an ETag header.
    expect(op("/systems/{systemId}/upload/cancel", "post").responses["204"].content).toBeUndefined();
    const part = op("/uploads/{uploadId}/parts/{partNumber}", "put");
    expect(part.security).toEqual([]);
    expect(part.responses["200"].content).toBeUndefined();
    expect(part.responses["200"].headers.etag).toBeDefined();
    expect(Object.keys(part.responses)).toEqual(expect.arrayContaining(["200", "403", "404", "413"]));
    expect(Object.keys(op("/systems/{systemId}/structure", "get").responses["200"].content)).toContain(
      "chemical/x-pdb",
    );
    for (const [path, method] of [
      ["/systems", "post"],
      ["/systems/{systemId}/smiles", "post"],
      ["/systems/{systemId}/upload/begin", "post"],
      ["/systems/{systemId}/upload/upload_url", "get"],
      ["/systems/{systemId}/upload/parts", "get"],
      ["/systems/{systemId}/upload/file", "get"],
    ]) {
      expect(op(path!, method!), `${method} ${path}`).toBeDefined();
      expect(op(path!, method!).responses["400"], `${method} ${path}`).toBeDefined();
    }
  });

  it("refuses the polymer_builder origin and unknown origins", async () => {
    const user = await signIn();
    for (const origin of ["polymer_builder", "paste"]) {
      const body = await user.expectCall(400, "POST", "/systems", { name: "No", description: "", origin });
      expect(body.errors[0].error_code).toBe("SYSTEM.VALIDATE.ORIGIN_NOT_ALLOWED");
    }
  });

  it("uploads a file in parts sent out of order, completes a reordered list and validates it", async () => {
    const user = await signIn();
    const { socket, messages } = await listen(user.token);
    const file = watersPdb(70_000);
    expect(file.length).toBeGreaterThan(PART);
    const systemId = await createSystem(user, "upload", "Three waters");
    const { upload_id } = await user.expectCall(200, "POST", `/systems/${systemId}/upload/begin`, {
      file: "waters.pdb",
      file_size: file.length,
    });
    const second = await putPart(user, systemId, upload_id, 2, file.subarray(PART));
    const first = await putPart(user, systemId, upload_id, 1, file.subarray(0, PART));
    const listed = await user.expectCall(200, "GET", `/systems/${systemId}/upload/parts?upload_id=${upload_id}`);
    expect(listed.parts).toEqual([
      { part_number: 1, etag: first.etag, size: PART },
      { part_number: 2, etag: second.etag, size: file.length - PART },
    ]);
    const completed = await user.expectCall(200, "POST", `/systems/${systemId}/upload/complete`, {
      upload_id,
      parts: [
        { part_number: 2, etag: second.etag },
        { part_number: 1, etag: first.etag },
        { part_number: 1, etag: first.etag.replace(/"/g, "") },
      ],
    });
    expect(completed.system_data.status).toBe("pending_validation");

    const system = await waitForStatus(user, systemId, ["valid", "invalid", "error"]);
    expect(system.system_data.problem).toBeNull();
    expect(system.system_data.status).toBe("valid");
    expect(system.system_data).toMatchObject({ file: "waters.pdb", file_size: file.length, upload_id });
    expect(system.system_data.structure).toMatchObject({ atoms: 9, molecules: 3, type: "system" });
    expect(system.type).toBe("system");
    const catalogue = await user.expectCall(200, "GET", "/systems?type=system");
    expect(catalogue.data.map((s: { id: string }) => s.id)).toContain(systemId);

    const original = await user.call("GET", `/systems/${systemId}/upload/file`);
    expect(original.status).toBe(200);
    expect(md5(original.body)).toBe(md5(file));
    expect(original.headers["content-disposition"]).toContain("waters.pdb");
    const structure = await user.call("GET", `/systems/${systemId}/structure`);
    expect(structure.status).toBe(200);
    expect(structure.body.toString()).toMatch(/(ATOM|HETATM).*HOH/);

    await waitUntil("the valid message", () =>
      statusesOf(messages, systemId, "uploaded_system_status_updated").includes("valid"),
    );
    socket.close();
    expect(statusesOf(messages, systemId, "uploaded_system_status_updated")).toEqual([
      "pending_upload",
      "uploading",
      "pending_validation",
      "validating",
      "valid",
    ]);
  }, 120_000);

  it("downloads an upload whose name is not ASCII under its own name (filename*)", async () => {
    const user = await signIn();
    const file = watersPdb(0);
    const fileName = "eau é 水 💧.pdb";
    const systemId = await createSystem(user, "upload", "Non-ASCII name");
    await uploadInOnePart(user, systemId, fileName, file);
    const system = await waitForStatus(user, systemId, ["valid", "invalid", "error"]);
    expect(system.system_data).toMatchObject({ status: "valid", file: fileName });

    const original = await fetch(`${harness.origin}/api/v2/systems/${systemId}/upload/file`, {
      headers: { authorization: `Bearer ${user.token}` },
    });
    expect(original.status).toBe(200);
    expect(md5(Buffer.from(await original.arrayBuffer()))).toBe(md5(file));
    const disposition = original.headers.get("content-disposition")!;
    expect(disposition).toMatch(/^[\x20-\x7e]+$/);
    expect(disposition).toContain('filename="eau _ _ _.pdb"');
    const encoded = /; filename\*=UTF-8''([^;\s]+)$/.exec(disposition)?.[1];
    expect(decodeURIComponent(encoded!)).toBe(fileName);
  }, 120_000);

  it("ends a file that uploads fine but does not parse invalid, with the line, and keeps it", async () => {
    const user = await signIn();
    const file = watersPdb(0, 4); // line 4 is the second atom
    const systemId = await createSystem(user, "upload", "Broken waters");
    await uploadInOnePart(user, systemId, "broken.pdb", file);
    const system = await waitForStatus(user, systemId, ["valid", "invalid", "error"]);
    expect(system.system_data.status).toBe("invalid");
    expect(system.system_data.problem.line).toBe(4);
    expect(system.system_data.problem.message).not.toContain(dataDir);
    expect(system.system_data.problem.message).not.toMatch(/\/(tmp|jobs)\//);
    expect(system.type).toBe("not_defined");
    // The file is kept, and another can be sent.
    const original = await user.call("GET", `/systems/${systemId}/upload/file`);
    expect(md5(original.body)).toBe(md5(file));
    await user.expectCall(200, "POST", `/systems/${systemId}/upload/begin`, { file: "fixed.gro", file_size: 100 });
  }, 120_000);

  it("refuses to complete with a missing or mismatched part and keeps the stored parts for a retry", async () => {
    const user = await signIn();
    const file = watersPdb(70_000);
    const systemId = await createSystem(user, "upload");
    const { upload_id } = await user.expectCall(200, "POST", `/systems/${systemId}/upload/begin`, {
      file: "waters.pdb",
      file_size: file.length,
    });
    const first = await putPart(user, systemId, upload_id, 1, file.subarray(0, PART));
    const second = await putPart(user, systemId, upload_id, 2, file.subarray(PART));
    const complete = (parts: object[]) =>
      user.call("POST", `/systems/${systemId}/upload/complete`, { upload_id, parts });

    const missing = await complete([{ part_number: 2, etag: second.etag }]);
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0]).toMatchObject({
      error_code: "SYSTEM.CREATE_UPLOADED_SYSTEM.FAILED",
      args: { reason: "InvalidPart", part_number: 1 },
    });
    const wrongEtag = await complete([
      { part_number: 1, etag: `"${"0".repeat(32)}"` },
      { part_number: 2, etag: second.etag },
    ]);
    expect(wrongEtag.status).toBe(400);
    expect(wrongEtag.body.errors[0].args).toMatchObject({ reason: "InvalidPart", part_number: 1 });
    const conflicting = await complete([
      { part_number: 1, etag: first.etag },
      { part_number: 1, etag: second.etag },
      { part_number: 2, etag: second.etag },
    ]);
    expect(conflicting.status).toBe(400);

    const listed = await user.expectCall(200, "GET", `/systems/${systemId}/upload/parts?upload_id=${upload_id}`);
    expect(listed.parts.map((p: { part_number: number }) => p.part_number)).toEqual([1, 2]);
    const ok = await complete([
      { part_number: 1, etag: first.etag },
      { part_number: 2, etag: second.etag },
    ]);
    expect(ok.status).toBe(200);
    // A second complete of the same upload is refused (it is no longer uploading).
    expect((await complete([{ part_number: 1, etag: first.etag }])).status).toBe(404);
  }, 120_000);

  it("cancels an upload, and a second cancel answers the same", async () => {
    const user = await signIn();
    const systemId = await createSystem(user, "upload");
    const file = watersPdb(0);
    const { upload_id } = await user.expectCall(200, "POST", `/systems/${systemId}/upload/begin`, {
      file: "waters.pdb",
      file_size: file.length,
    });
    const { url } = await putPart(user, systemId, upload_id, 1, file);
    await user.expectCall(204, "POST", `/systems/${systemId}/upload/cancel`, { upload_id });
    await user.expectCall(204, "POST", `/systems/${systemId}/upload/cancel`, { upload_id });
    const system = await user.expectCall(200, "GET", `/systems/${systemId}`);
    expect(system.system_data).toMatchObject({ status: "pending_upload", upload_id: null, file: null });
    await user.expectCall(404, "GET", `/systems/${systemId}/upload/parts?upload_id=${upload_id}`);
    // The parts are gone: the old part URL leads nowhere.
    const late = await fetch(url, { method: "PUT", body: file });
    if (storeKind === "local") expect(late.status).toBe(404);
    else expect(late.status).toBeGreaterThanOrEqual(400); // moto answers NoSuchUpload
  });

  it("refuses a wrong extension and an oversize file at begin", async () => {
    const user = await signIn();
    const systemId = await createSystem(user, "upload");
    const wrong = await user.expectCall(400, "POST", `/systems/${systemId}/upload/begin`, {
      file: "structure.xyz",
      file_size: 10,
    });
    expect(wrong.errors[0].args.message).toBe(unsupportedFileTypeMessage([".pdb", ".gro"]));
    const huge = await user.expectCall(400, "POST", `/systems/${systemId}/upload/begin`, {
      file: "melt.gro",
      file_size: 2000 * MB + 1,
    });
    expect(huge.errors[0].args.message).toBe(fileTooLargeMessage(2000));
    const system = await user.expectCall(200, "GET", `/systems/${systemId}`);
    expect(system.system_data.status).toBe("pending_upload");
    // Exactly at the limit is fine.
    await user.expectCall(200, "POST", `/systems/${systemId}/upload/begin`, { file: "melt.GRO", file_size: 2000 * MB });
  });

  it.runIf(storeKind === "local")("refuses a part URL with a wrong or expired signature", async () => {
    const user = await signIn();
    const systemId = await createSystem(user, "upload");
    const body = Buffer.from("part");
    const { upload_id } = await user.expectCall(200, "POST", `/systems/${systemId}/upload/begin`, {
      file: "a.pdb",
      file_size: 4,
    });
    const { url } = await user.expectCall(
      200,
      "GET",
      `/systems/${systemId}/upload/upload_url?upload_id=${upload_id}&part_number=1`,
    );
    const signed = new URL(url);
    const tampered = new URL(url);
    tampered.searchParams.set("signature", "0".repeat(64));
    expect((await fetch(tampered, { method: "PUT", body })).status).toBe(403);
    const otherPart = new URL(url);
    otherPart.pathname = otherPart.pathname.replace(/\/parts\/1$/, "/parts/2");
    expect((await fetch(otherPart, { method: "PUT", body })).status).toBe(403);

    // The key the server keeps in its data directory signs `<upload id>:<part>:<expiry>`.
    const key = Buffer.from(readFileSync(join(dataDir, "upload-signing.key"), "utf8").trim(), "hex");
    const signedAt = (expires: number) => {
      const target = new URL(signed);
      target.searchParams.set("expires", String(expires));
      target.searchParams.set("signature", createHmac("sha256", key).update(`${upload_id}:1:${expires}`).digest("hex"));
      return target;
    };
    const expired = await fetch(signedAt(Math.floor(Date.now() / 1000) - 5), { method: "PUT", body });
    expect(expired.status).toBe(403);
    expect(await expired.text()).toContain("expired");
    // The same signing with a future expiry is accepted: the refusal above was the expiry alone.
    expect((await fetch(signedAt(Math.floor(Date.now() / 1000) + 60), { method: "PUT", body })).status).toBe(200);
    expect((await fetch(signed, { method: "PUT", body })).status).toBe(200);
    // A part larger than the whole file begun is refused.
    expect((await fetch(signed, { method: "PUT", body: Buffer.from("parts") })).status).toBe(413);
  });

  it("converts a SMILES, refuses bad ones, and starts one job for a double Save", async () => {
    const user = await signIn();
    const { socket, messages } = await listen(user.token);
    const systemId = await createSystem(user, "smiles", "Aspirin");
    for (const smiles of ["", "C1CC", "[*:1]CC[*:2]", "C".repeat(2001)]) {
      const refused = await user.expectCall(400, "POST", `/systems/${systemId}/smiles`, { smiles });
      expect(refused.errors[0].error_code).toBe("SYSTEM.CREATE_DRAWN_SYSTEM.INVALID_SMILES");
    }
    // Two clicks at once: one conversion.
    const saves = await Promise.all(
      [0, 1].map(() => user.call("POST", `/systems/${systemId}/smiles`, { smiles: "CC(=O)Oc1ccccc1C(=O)O" })),
    );
    expect(saves.map((s) => s.status).sort()).toEqual([202, 409]);
    const jobs = await harness.app.database.db.execute(
      sql`SELECT count(*)::int AS n FROM structure_jobs WHERE system_id = ${systemId}`,
    );
    expect((jobs as unknown as { rows: Array<{ n: number }> }).rows[0]!.n).toBe(1);
    const system = await waitForStatus(user, systemId, ["converted", "failed", "error"]);
    expect(system.system_data.problem).toBeNull();
    expect(system.system_data).toMatchObject({ status: "converted", smiles: "CC(=O)Oc1ccccc1C(=O)O" });
    expect(system.system_data.structure).toMatchObject({ atoms: 21, molecules: 1, type: "molecule" });
    expect(system.type).toBe("molecule");
    // Converted: Save is refused.
    await user.expectCall(409, "POST", `/systems/${systemId}/smiles`, { smiles: "CCO" });
    const pdb = await user.call("GET", `/systems/${systemId}/structure`);
    expect(pdb.status).toBe(200);
    expect(pdb.body.toString().match(/^(ATOM|HETATM)/gm)).toHaveLength(21);
    const sdf = await user.call("GET", `/systems/${systemId}/structure?format=sdf`);
    expect(sdf.body.toString()).toContain("M  END");

    await waitUntil("the converted message", () =>
      statusesOf(messages, systemId, "system_conversion_status_updated").includes("converted"),
    );
    socket.close();
    expect(statusesOf(messages, systemId, "system_conversion_status_updated")).toEqual([
      "pending",
      "converting",
      "converted",
    ]);
  }, 120_000);

  it("ends a SMILES the engine cannot build failed, with its reason, and lets the user save another", async () => {
    const user = await signIn();
    const systemId = await createSystem(user, "smiles");
    // Oganesson: RDKit reads it; no force field here covers it.
    await user.expectCall(202, "POST", `/systems/${systemId}/smiles`, { smiles: "[Og]" });
    const system = await waitForStatus(user, systemId, ["converted", "failed", "error"]);
    expect(system.system_data.status).toBe("failed");
    expect(system.system_data.problem.code).toBe("UNSUPPORTED_ELEMENT");
    expect(system.system_data.problem.message).toContain("Og");
    await user.expectCall(202, "POST", `/systems/${systemId}/smiles`, { smiles: "O" });
    expect((await waitForStatus(user, systemId, ["converted", "failed", "error"])).system_data.status).toBe(
      "converted",
    );
  }, 120_000);

  it("answers 404 on every call for another user's system, and 400 for the other origin", async () => {
    const owner = await signIn();
    const stranger = await signIn();
    const uploadSystem = await createSystem(owner, "upload");
    const smilesSystem = await createSystem(owner, "smiles");
    const { upload_id } = await owner.expectCall(200, "POST", `/systems/${uploadSystem}/upload/begin`, {
      file: "a.pdb",
      file_size: 10,
    });
    const calls: Array<["GET" | "POST", string, object?]> = [
      ["GET", `/systems/${uploadSystem}`],
      ["POST", `/systems/${smilesSystem}/smiles`, { smiles: "CCO" }],
      ["POST", `/systems/${uploadSystem}/upload/begin`, { file: "b.pdb", file_size: 10 }],
      ["GET", `/systems/${uploadSystem}/upload/upload_url?upload_id=${upload_id}&part_number=1`],
      ["GET", `/systems/${uploadSystem}/upload/parts?upload_id=${upload_id}`],
      ["POST", `/systems/${uploadSystem}/upload/complete`, { upload_id, parts: [{ part_number: 1, etag: "x" }] }],
      ["POST", `/systems/${uploadSystem}/upload/cancel`, { upload_id }],
      ["GET", `/systems/${uploadSystem}/structure`],
      ["GET", `/systems/${uploadSystem}/upload/file`],
    ];
    // …and as much when the body or query is refused too (an id is looked at before the rest).
    const refused: Array<["GET" | "POST", string, object?]> = [
      ["POST", `/systems/${smilesSystem}/smiles`, {}],
      ["POST", `/systems/${uploadSystem}/upload/begin`, { file: "b.txt", file_size: -1 }],
      ["POST", `/systems/${uploadSystem}/upload/begin`, {}],
      ["GET", `/systems/${uploadSystem}/upload/upload_url?part_number=0`],
      ["GET", `/systems/${uploadSystem}/upload/parts`],
      ["POST", `/systems/${uploadSystem}/upload/complete`, { parts: "none" }],
      ["POST", `/systems/${uploadSystem}/upload/cancel`, {}],
      ["GET", `/systems/${uploadSystem}/structure?format=xyz`],
    ];
    for (const [method, url, payload] of [...calls, ...refused]) {
      const response = await stranger.call(method, url, payload);
      expect(response.status, `${method} ${url}`).toBe(404);
      expect(response.body.errors[0].error_code, `${method} ${url}`).toBe("SYSTEM.GET.NOT_FOUND");
    }
    // The owner, for the same refused calls, is told what is wrong with them.
    for (const [method, url, payload] of refused) {
      const response = await owner.call(method, url, payload);
      expect(response.status, `${method} ${url}`).toBe(400);
    }
    // The owner's upload is untouched by the stranger's cancel.
    const system = await owner.expectCall(200, "GET", `/systems/${uploadSystem}`);
    expect(system.system_data).toMatchObject({ status: "uploading", upload_id });
    // The other origin's calls: valid requests the system's origin refuses (409).
    const wrongOrigin = await owner.expectCall(409, "POST", `/systems/${uploadSystem}/smiles`, { smiles: "CCO" });
    expect(wrongOrigin.errors[0].error_code).toBe("SYSTEM.VALIDATE.ORIGIN_NOT_ALLOWED");
    await owner.expectCall(409, "POST", `/systems/${smilesSystem}/upload/begin`, { file: "a.pdb", file_size: 10 });
    // Archive works as for any system.
    await owner.expectCall(204, "DELETE", `/systems/${smilesSystem}`);
    await owner.expectCall(404, "GET", `/systems/${smilesSystem}`);
  });

  // upload_url reads the caller's user row with the system in one query: the same rules as any call.
  it("answers a part URL by the rules of every call: first call, impersonation, other origin", async () => {
    const owner = await signIn();
    const systemId = await createSystem(owner, "upload");
    const { upload_id } = await owner.expectCall(200, "POST", `/systems/${systemId}/upload/begin`, {
      file: "a.pdb",
      file_size: 10,
    });
    const urlOf = (id: string) => `/api/v2/systems/${id}/upload/upload_url?upload_id=${upload_id}&part_number=1`;
    const get = async (token: string, id = systemId) =>
      harness.app.inject({ method: "GET", url: urlOf(id), headers: { authorization: `Bearer ${token}` } });

    // A user whose very first call this is: provisioned on the way, and the system is not theirs.
    const newcomer = userClaims();
    const first = await get(await (await issuer).sign(newcomer, { expiresIn: "1h" }));
    expect(first.statusCode).toBe(404);
    expect(first.json().errors[0].error_code).toBe("SYSTEM.GET.NOT_FOUND");
    const [row] = await harness.app.database.db.select().from(users).where(eq(users.id, newcomer.sub));
    expect(row?.provisionedAt).toBeInstanceOf(Date);

    // An impersonation the user has not allowed: 401 before anything else; once allowed, the URL.
    const impersonation = await (await issuer).sign(
      { ...owner.claims, impersonator: "support@polyforge.local" },
      { expiresIn: "1h" },
    );
    const refused = await get(impersonation);
    expect(refused.statusCode).toBe(401);
    expect(refused.json().errors[0].error_code).toBe("COMMON.UNAUTHORIZED.IMPERSONATION_NOT_ALLOWED");
    await owner.expectCall(200, "PUT", "/users/account", {
      first_name: "Ada",
      last_name: "Lovelace",
      allow_impersonation: true,
    });
    const allowed = await get(impersonation);
    expect(allowed.statusCode).toBe(200);
    expect(allowed.json().url).toContain(storeKind === "local" ? `/uploads/${upload_id}/parts/1` : upload_id);

    // Not a uuid, another origin, another upload id.
    expect((await get(owner.token, "not-a-uuid")).statusCode).toBe(400);
    const smilesSystem = await createSystem(owner, "smiles");
    const wrongOrigin = await get(owner.token, smilesSystem);
    expect(wrongOrigin.statusCode).toBe(409);
    expect(wrongOrigin.json().errors[0].error_code).toBe("SYSTEM.VALIDATE.ORIGIN_NOT_ALLOWED");
    const otherUpload = await owner.call("GET", `/systems/${systemId}/upload/upload_url?upload_id=x&part_number=1`);
    expect(otherUpload.status).toBe(404);
  });

  it("resumes an upload after a restart and takes back a validation its runner left", async () => {
    const user = await signIn();
    const file = watersPdb(70_000);
    const systemId = await createSystem(user, "upload", "Resumed");
    const { upload_id } = await user.expectCall(200, "POST", `/systems/${systemId}/upload/begin`, {
      file: "waters.pdb",
      file_size: file.length,
    });
    const first = await putPart(user, systemId, upload_id, 1, file.subarray(0, PART));

    // The server stops mid-upload; a new one (no job runner yet) starts on the same data.
    await harness.app.close();
    harness = await start(false);
    const listed = await user.expectCall(200, "GET", `/systems/${systemId}/upload/parts?upload_id=${upload_id}`);
    expect(listed.parts).toEqual([{ part_number: 1, etag: first.etag, size: PART }]);
    // Only the rest is sent.
    const second = await putPart(user, systemId, upload_id, 2, file.subarray(PART));
    await user.expectCall(200, "POST", `/systems/${systemId}/upload/complete`, {
      upload_id,
      parts: [
        { part_number: 1, etag: first.etag },
        { part_number: 2, etag: second.etag },
      ],
    });
    // A runner claimed the validation and died: its lease has lapsed.
    const { db } = harness.app.database;
    await db.execute(sql`UPDATE structure_jobs SET status = 'running', lease_owner = 'a-runner-that-died',
      lease_expires_at = now() - interval '1 second', attempts = 1 WHERE system_id = ${systemId}`);
    await db.execute(sql`UPDATE systems SET system_data = jsonb_set(system_data, '{status}', '"validating"')
      WHERE id = ${systemId}`);
    await harness.app.close();
    harness = await start(true);
    const system = await waitForStatus(user, systemId, ["valid", "invalid", "error"]);
    expect(system.system_data.status).toBe("valid");
    expect(system.system_data.structure.atoms).toBe(9);
    const original = await user.call("GET", `/systems/${systemId}/upload/file`);
    expect(md5(original.body)).toBe(md5(file));
  }, 180_000);
});
