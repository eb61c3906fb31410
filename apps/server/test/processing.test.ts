import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINE_PYTHON } from "../src/platform/paths";
import { startTestApp, type TestApp } from "./support/app";
import { databaseKinds } from "./support/database";
import { openNotifications } from "./support/notifications";
import { caller, expectStatus } from "./support/polymer-builder";
import { enginesOf, executionRow, finishedPolyethylene, waitForStatus } from "./support/processing";
import { startS3rver } from "./support/s3-server";
import { userClaims } from "./support/tokens";
import { waitFor } from "./support/wait";

const execFileAsync = promisify(execFile);

/** Reads a results bundle with Python's zipfile and ParmEd: atom counts of every structure and
 * topology, and the energies table's shape. */
const INSPECT_BUNDLE = `
import csv, io, json, sys, tempfile, zipfile, parmed
bundle = zipfile.ZipFile(sys.argv[1])
names = bundle.namelist()
out = {"names": names}
with tempfile.TemporaryDirectory() as tmp:
    bundle.extractall(tmp)
    for name in ("system.pdb", "final.pdb", "minimized.pdb"):
        if name in names:
            out[name] = len(parmed.load_file(f"{tmp}/{name}").atoms)
    out["system.gro"] = len(parmed.load_file(f"{tmp}/system.gro").atoms)
    out["system.prmtop"] = len(parmed.load_file(f"{tmp}/system.prmtop", f"{tmp}/system.inpcrd").atoms)
    out["system.top"] = len(parmed.load_file(f"{tmp}/system.top", xyz=f"{tmp}/system.gro").atoms)
rows = list(csv.DictReader(io.StringIO(bundle.read("energies.csv").decode())))
out["energies"] = {"rows": len(rows), "columns": list(rows[0].keys()) if rows else []}
print(json.dumps(out))
`;

/** A whole processing run through the API: real engine (build-system: build, parametrise, minimise,
 * MD, bundle), status pushed on the socket, results downloaded. */
describe.each(databaseKinds())("system processing end to end on %s", (kind) => {
  let testApp: TestApp;
  let socketUrl: string;

  beforeAll(async () => {
    testApp = await startTestApp(kind);
    await testApp.app.listen({ port: 0, host: "127.0.0.1" });
    socketUrl = `ws://127.0.0.1:${(testApp.app.server.address() as AddressInfo).port}/api/v2/notifications/`;
  });
  afterAll(() => testApp.close());

  async function signedInUser() {
    const token = await testApp.issuer.sign(userClaims(), { expiresIn: "1h" });
    const { socket, messages } = await openNotifications(`${socketUrl}?token=${token}`);
    return { token, user: caller(testApp, token), socket, messages };
  }

  it("processes a tiny polymer system to completion and serves a consistent results bundle", async () => {
    const { token, user, socket, messages } = await signedInUser();
    const system = await finishedPolyethylene(user, { name: "Tiny PE melt", copies: 3, units: 4 });
    const started = await expectStatus(user, 201, "POST", `/systems/${system.id}/process/start`);

    const done = await waitForStatus(testApp.app.database.db, started.id, ["completed", "error"], 240_000);
    expect(done.errorMessage).toBeNull();
    expect(done.status).toBe("completed");
    expect(done.seed).toBe(1234);
    expect(done.versions.openmm).toMatch(/\d/);
    expect(done.resultFiles.map((f) => f.name).sort()).toEqual(
      ["energies.csv", "final.pdb", "minimized.pdb", "report.json", "system.pdb", "tiny_pe_melt_files.zip"].sort(),
    );

    // Every status change was pushed to the owner's socket, in order.
    await waitFor("the completed message", async () =>
      messages.some((m) => m.status === "completed") ? true : undefined,
    );
    socket.close();
    const statuses = messages.filter((m) => m.execution_id === started.id).map((m) => m.status as string);
    expect(statuses[0]).toBe("waiting_for_resources");
    expect(statuses).toContain("processing");
    expect(statuses).toContain("running");
    expect(statuses.at(-1)).toBe("completed");
    expect(statuses.indexOf("processing")).toBeLessThan(statuses.indexOf("running"));
    expect(messages.every((m) => m.message_type === "system_execution_status_updated")).toBe(true);

    const download = await testApp.app.inject({
      method: "GET",
      url: `/api/v2/systems/${system.id}/files`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(download.statusCode).toBe(200);
    expect(download.headers["content-type"]).toBe("application/zip");
    expect(download.headers["content-disposition"]).toBe('attachment; filename="tiny_pe_melt_files.zip"');
    const zipPath = join(mkdtempSync(join(tmpdir(), "polyforge-bundle-")), "bundle.zip");
    writeFileSync(zipPath, download.rawPayload);

    const { stdout } = await execFileAsync(ENGINE_PYTHON, ["-c", INSPECT_BUNDLE, zipPath]);
    const bundle = JSON.parse(stdout);
    // 3 chains of H-(CH2CH2)4-H: 3 × (8 C + 18 H) = 78 atoms in every file.
    const atoms = 3 * 26;
    for (const file of ["system.pdb", "final.pdb", "minimized.pdb", "system.gro", "system.prmtop", "system.top"]) {
      expect(bundle[file], file).toBe(atoms);
    }
    expect(bundle.names).toEqual(expect.arrayContaining(["README.md", "job.json", "trajectory.dcd"]));
    expect(bundle.energies.rows).toBeGreaterThan(0);
    expect(bundle.energies.columns.join(",")).toMatch(/time.*potential.*temperature.*density/);

    const energies = await testApp.app.inject({
      method: "GET",
      url: `/api/v2/systems/${system.id}/files/energies.csv`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(energies.statusCode).toBe(200);
    expect(energies.body.trim().split("\n")).toHaveLength(bundle.energies.rows + 1);
  });

  it("cancels a running job: the engine's process group is killed and the job ends cancelled", async () => {
    const { user, socket, messages } = await signedInUser();
    const system = await finishedPolyethylene(user, { copies: 2, units: 3, dynamicsSteps: 2_000_000 });
    const started = await expectStatus(user, 201, "POST", `/systems/${system.id}/process/start`);
    await waitForStatus(testApp.app.database.db, started.id, ["running"], 180_000);
    const engineRunning = await waitFor("the engine process", async () =>
      (await enginesOf(started.id)).length > 0 ? true : undefined,
    );
    expect(engineRunning).toBe(true);

    const cancelled = await expectStatus(user, 200, "DELETE", `/systems/${system.id}/process/cancel`);
    expect(cancelled.status).toBe("cancelled");
    await waitFor("the engine to exit", async () => ((await enginesOf(started.id)).length === 0 ? true : undefined));
    // The runner does not overwrite the cancellation with the engine's CANCELLED error: once it has
    // let the job go, it has written all it will.
    const { runner } = testApp.app.processing;
    await waitFor("the runner to let the job go", async () => (runner.activeJobs === 0 ? true : undefined));
    const row = await executionRow(testApp.app.database.db, started.id);
    expect(row).toMatchObject({ status: "cancelled", resultFiles: [], leaseOwner: null });
    await waitFor("the cancelled message", async () =>
      messages.some((m) => m.execution_id === started.id && m.status === "cancelled") ? true : undefined,
    );
    socket.close();
    // Cancelled can be started again.
    const again = await expectStatus(user, 201, "POST", `/systems/${system.id}/process/start`);
    await expectStatus(user, 200, "DELETE", `/systems/${system.id}/process/cancel`);
    expect(again.status).toBe("waiting_for_resources");
  });
});

/** The same run with results in an S3 store (s3rver speaks the S3 protocol). */
describe("system processing with the S3 file store", () => {
  let testApp: TestApp;
  let s3server: { endpoint: string; close(): Promise<void> };

  beforeAll(async () => {
    s3server = await startS3rver("results");
    testApp = await startTestApp("pglite", {
      S3_ENDPOINT: s3server.endpoint,
      S3_BUCKET: "results",
      S3_ACCESS_KEY_ID: "S3RVER",
      S3_SECRET_ACCESS_KEY: "S3RVER",
    });
  });
  afterAll(async () => {
    await testApp.close();
    await s3server.close();
  });

  it("stores the results in the bucket and streams them back", async () => {
    const token = await testApp.issuer.sign(userClaims(), { expiresIn: "1h" });
    const user = caller(testApp, token);
    const system = await finishedPolyethylene(user, { name: "S3 melt", copies: 2, units: 3 });
    const started = await expectStatus(user, 201, "POST", `/systems/${system.id}/process/start`);
    const done = await waitForStatus(testApp.app.database.db, started.id, ["completed", "error"], 240_000);
    expect(done.errorMessage).toBeNull();
    const get = (path: string) =>
      testApp.app.inject({ method: "GET", url: `/api/v2${path}`, headers: { authorization: `Bearer ${token}` } });
    const bundle = await get(`/systems/${system.id}/files`);
    expect(bundle.statusCode).toBe(200);
    expect(bundle.rawPayload.subarray(0, 2).toString()).toBe("PK");
    const bundleFile = done.resultFiles.find((f) => f.name === "s3_melt_files.zip");
    expect(bundle.rawPayload.length).toBe(bundleFile?.size);
    const energies = await get(`/systems/${system.id}/files/energies.csv`);
    expect(energies.body).toMatch(/^time/);
  });
});
