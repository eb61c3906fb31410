import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { NotificationMessage } from "@polyforge/contracts/notifications";
import { DRAFT_POTENTIAL_MESSAGE } from "@polyforge/contracts/potentials";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { potentials } from "../src/modules/potentials/schema";
import { startTestApp, type TestApp } from "./support/app";
import { databaseKinds } from "./support/database";
import { localPartEtag } from "./support/etag";
import { openNotifications } from "./support/notifications";
import { type Caller, caller, errorCode, expectStatus } from "./support/polymer-builder";
import { convertSmiles, enginesOf } from "./support/processing";
import { userClaims } from "./support/tokens";
import { waitFor, waitUntil } from "./support/wait";

/** Issue 21: potentials through the API, with the real engine (generate-potential with antechamber,
 * sqm, parmchk2, tleap and OpenMM; validate-topology) and the embedded file store. */

/** Three waters 4 Å apart in a 24 Å cell. */
function watersPdb(): string {
  const line = (serial: number, name: string, resSeq: number, xyz: number[], element: string) => {
    const [x, y, z] = xyz.map((v) => v.toFixed(3).padStart(8));
    return `HETATM${String(serial).padStart(5)}  ${name.padEnd(3)} HOH A${String(resSeq).padStart(4)}    ${x}${y}${z}  1.00  0.00          ${element.padStart(2)}`;
  };
  const lines = ["CRYST1   24.000   24.000   24.000  90.00  90.00  90.00 P 1           1"];
  let serial = 1;
  for (let w = 0; w < 3; w++) {
    const o = [4 + 4 * w, 4, 4];
    lines.push(line(serial++, "O", w + 1, o, "O"));
    lines.push(line(serial++, "H1", w + 1, [o[0]! + 0.957, o[1]!, o[2]!], "H"));
    lines.push(line(serial++, "H2", w + 1, [o[0]! - 0.24, o[1]! + 0.927, o[2]!], "H"));
  }
  return `${lines.join("\n")}\nEND\n`;
}

/** A zinc chloride and a water: GAFF has no zinc. */
const ZINC_CHLORIDE_PDB = `HETATM    1 ZN    ZN A   1       2.000   2.000   2.000  1.00  0.00          ZN
HETATM    2 CL    CL A   2       6.000   2.000   2.000  1.00  0.00          CL
HETATM    3 CL    CL A   3       2.000   6.000   2.000  1.00  0.00          CL
HETATM    4  O   HOH A   4       6.000   6.000   6.000  1.00  0.00           O
HETATM    5  H1  HOH A   4       6.957   6.000   6.000  1.00  0.00           H
HETATM    6  H2  HOH A   4       5.760   6.927   6.000  1.00  0.00           H
END
`;

/** A self-contained TIP3P-like topology of `waters` waters named as the PDB names them. */
function watersTop(waters: number): string {
  return `; water box
[ defaults ]
; nbfunc comb-rule gen-pairs fudgeLJ fudgeQQ
1 2 yes 0.5 0.8333

[ atomtypes ]
OW  8 15.9994 0.0 A 0.315061 0.636386
HW  1  1.008  0.0 A 0.0 0.0

[ moleculetype ]
HOH 2

[ atoms ]
1 OW 1 HOH O  1 -0.834 15.9994
2 HW 1 HOH H1 1  0.417  1.008
3 HW 1 HOH H2 1  0.417  1.008

[ system ]
waters

[ molecules ]
HOH ${waters}
`;
}

describe.each(databaseKinds())("potentials on %s", (dbKind) => {
  let testApp: TestApp;
  let origin: string;
  let port: number;

  beforeAll(async () => {
    // The embedded store's part URLs are absolute (under PUBLIC_URL): the app listens on a port of
    // this suite's range.
    port = Number(process.env.POTENTIALS_TEST_PORT ?? 18200) + (dbKind === "pglite" ? 1 : 2);
    origin = `http://127.0.0.1:${port}`;
    testApp = await startTestApp(dbKind, { PUBLIC_URL: origin });
    await testApp.app.listen({ port, host: "127.0.0.1" });
  }, 120_000);
  afterAll(async () => {
    await testApp?.close();
  });

  async function signIn(organization = "other") {
    const token = await testApp.issuer.sign(userClaims({ organization }), { expiresIn: "1h" });
    return { token, user: caller(testApp, token) };
  }

  const listen = (token: string) => openNotifications(`ws://127.0.0.1:${port}/api/v2/notifications/?token=${token}`);

  /** A system from a SMILES, converted. */
  async function smilesSystem(user: Caller, smiles: string): Promise<string> {
    const { id } = await expectStatus(user, 201, "POST", "/systems", { name: `SMILES ${smiles}`, origin: "smiles" });
    await convertSmiles(user, id, smiles, 120_000, 200);
    return id;
  }

  /** One file through the multipart calls under `base` (…/upload/begin, upload_url, complete). */
  async function upload(user: Caller, base: string, file: string, text: string) {
    const body = Buffer.from(text);
    const { upload_id } = await expectStatus(user, 200, "POST", `${base}/upload/begin`, {
      file,
      file_size: body.length,
    });
    const { url } = await expectStatus(
      user,
      200,
      "GET",
      `${base}/upload/upload_url?upload_id=${encodeURIComponent(upload_id)}&part_number=1`,
    );
    const put = await fetch(url, { method: "PUT", body });
    expect(put.status).toBe(200);
    expect(put.headers.get("etag")).toBe(`"${localPartEtag(body)}"`);
    return { upload_id, etag: localPartEtag(body) };
  }

  /** A system from an uploaded .pdb, validated. */
  async function fileSystem(user: Caller, pdb: string): Promise<string> {
    const { id } = await expectStatus(user, 201, "POST", "/systems", { name: "Uploaded", origin: "upload" });
    const { upload_id, etag } = await upload(user, `/systems/${id}`, "structure.pdb", pdb);
    await expectStatus(user, 200, "POST", `/systems/${id}/upload/complete`, {
      upload_id,
      parts: [{ part_number: 1, etag }],
    });
    await waitFor(
      "the structure validated",
      async () => {
        const system = await expectStatus(user, 200, "GET", `/systems/${id}`);
        expect(system.system_data.status).not.toMatch(/invalid|error/);
        return system.system_data.status === "valid" ? system : undefined;
      },
      120_000,
      200,
    );
    return id;
  }

  async function waitForPotential(user: Caller, systemId: string, id: string, statuses: string[], timeoutMs = 180_000) {
    return waitFor(
      `potential ${id} ${statuses.join("/")}`,
      async () => {
        const potential = await expectStatus(user, 200, "GET", `/systems/${systemId}/potentials/${id}`);
        const status = potential.potential_execution?.status ?? potential.uploaded_potential?.status;
        return statuses.includes(status) ? potential : undefined;
      },
      timeoutMs,
      250,
    );
  }

  /** The result of the GAFF2 ethanol potential: one molecule, its atom types, a lower energy, its files. */
  function expectEthanolResult(done: Awaited<ReturnType<typeof waitForPotential>>) {
    const result = done.potential_execution.result;
    expect(result).toMatchObject({ force_field: "GAFF2", atoms: 9, molecules: 1 });
    expect(result.total_charge).toBeCloseTo(0, 4);
    expect(result.kinds).toEqual([
      expect.objectContaining({
        name: "C2H6O",
        copies: 1,
        atoms: 9,
        net_charge: 0,
        atom_types: ["c3", "h1", "hc", "ho", "oh"],
      }),
    ]);
    expect(typeof result.minimized_energy_kj_mol).toBe("number");
    expect(result.minimized_energy_kj_mol).toBeLessThanOrEqual(result.energy_before_minimization_kj_mol);
    const names = done.potential_execution.result_files.map((file: { name: string }) => file.name);
    expect(names).toEqual(
      expect.arrayContaining(["gaff2_ethanol_files.zip", "system.top", "molecules.itp", "system.prmtop"]),
    );
  }

  /** The statuses of a potential went out on the socket as they happened, as execution messages. */
  async function expectPushedExecution(messages: NotificationMessage[], systemId: string, potentialId: string) {
    await waitFor("the completed message", async () =>
      messages.some((m) => m.potential_id === potentialId && m.status === "completed") ? true : undefined,
    );
    const pushed = messages
      .filter((m) => m.potential_id === potentialId)
      .map((m) => {
        expect(m.message_type).toBe("system_execution_status_updated");
        expect(m.system_id).toBe(systemId);
        return m.status;
      });
    expect(pushed[0]).toBe("waiting_for_resources");
    expect(pushed).toContain("processing");
    expect(pushed.at(-1)).toBe("completed");
  }

  /** One zip with the GROMACS, Amber and antechamber/parmchk2 files of the ethanol potential. */
  async function expectEthanolZip(token: string, systemId: string, potentialId: string) {
    const download = await testApp.app.inject({
      method: "GET",
      url: `/api/v2/systems/${systemId}/potentials/${potentialId}/files`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(download.statusCode).toBe(200);
    expect(download.headers["content-type"]).toBe("application/zip");
    expect(download.headers["content-disposition"]).toBe('attachment; filename="gaff2_ethanol_files.zip"');
    const zip = download.rawPayload;
    expect(zip.subarray(0, 2).toString()).toBe("PK");
    for (const entry of [
      "system.top",
      "molecules.itp",
      "system.gro",
      "system.prmtop",
      "system.inpcrd",
      "force_field/C2H6O.mol2",
      "force_field/C2H6O.frcmod",
    ]) {
      expect(zip.includes(Buffer.from(entry)), entry).toBe(true);
    }
  }

  /** The system and the catalogue list the potential as 'Potential - {name}' with its system type. */
  async function expectListed(user: Caller, systemId: string, potentialId: string) {
    const system = await expectStatus(user, 200, "GET", `/systems/${systemId}`);
    expect(system.potentials).toEqual([{ id: potentialId, name: "GAFF2 ethanol", system_type: "molecule" }]);
    const list = await expectStatus(user, 200, "GET", "/systems?type=molecule&page_size=100");
    const row = list.data.find((s: { id: string }) => s.id === systemId);
    expect(row.potentials).toEqual(system.potentials);
    const { data } = await expectStatus(user, 200, "GET", `/systems/${systemId}/potentials`);
    expect(data.map((p: { id: string }) => p.id)).toEqual([potentialId]);
  }

  /** An upload draft, the only one of its system, and the file names and sizes it refuses. */
  async function uploadDraft(user: Caller, systemId: string) {
    const draft = await expectStatus(user, 201, "POST", `/systems/${systemId}/potentials`, {
      origin: "upload",
      name: "TIP3P box",
    });
    expect(draft).toMatchObject({
      origin: "upload",
      is_draft: true,
      antechamber_potential: null,
      potential_execution: null,
      uploaded_potential: { status: "pending_upload", file: null },
    });
    // One draft at a time.
    const second = await user.call("POST", `/systems/${systemId}/potentials`, { origin: "upload", name: "Another" });
    expect(second.status).toBe(409);
    expect(errorCode(second.body)).toBe("SYSTEM.CREATE_POTENTIAL.EXISTING_DRAFT");
    expect(second.body.errors[0].args.message).toBe(DRAFT_POTENTIAL_MESSAGE);

    // Not a .top, or too large: the contract's messages.
    const wrong = await user.call("POST", `/systems/${systemId}/potentials/${draft.id}/upload/begin`, {
      file: "system.itp",
      file_size: 10,
    });
    expect(wrong.status).toBe(400);
    expect(JSON.stringify(wrong.body)).toContain("The file has an unsupported file type. Accepted: .top");
    const large = await user.call("POST", `/systems/${systemId}/potentials/${draft.id}/upload/begin`, {
      file: "system.top",
      file_size: 4000 * 1024 * 1024 + 1,
    });
    expect(large.status).toBe(400);
    expect(JSON.stringify(large.body)).toContain("The file exceeds the maximum size of 4000 MB");
    return draft;
  }

  /** A .top of the structure (three waters) uploaded into the draft: valid, locked, and downloadable. */
  async function uploadValidTop(user: Caller, token: string, systemId: string, draftId: string) {
    const base = `/systems/${systemId}/potentials/${draftId}`;
    const { upload_id, etag } = await upload(user, base, "water box.top", watersTop(3));
    const completed = await expectStatus(user, 200, "POST", `${base}/upload/complete`, {
      upload_id,
      parts: [{ part_number: 1, etag }],
    });
    expect(completed.is_draft).toBe(false);
    const valid = await waitForPotential(user, systemId, draftId, ["valid", "invalid", "error"]);
    expect(valid.uploaded_potential).toMatchObject({
      status: "valid",
      file: "water box.top",
      problem: null,
      topology: { atoms: 9, molecules: 3, molecule_types: ["HOH"] },
    });
    // A saved uploaded potential is locked.
    const again = await user.call("POST", `${base}/upload/begin`, { file: "system.top", file_size: 10 });
    expect(again.status).toBe(409);
    expect(errorCode(again.body)).toBe("SYSTEM.UPLOAD_POTENTIAL.FAILED");
    // Its file comes back as uploaded.
    const file = await testApp.app.inject({
      method: "GET",
      url: `/api/v2${base}/files`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(file.statusCode).toBe(200);
    expect(file.body).toBe(watersTop(3));
  }

  /** A new upload potential with `text` as its .top, uploaded and checked. */
  async function uploadedPotential(user: Caller, systemId: string, name: string, file: string, text: string) {
    const created = await expectStatus(user, 201, "POST", `/systems/${systemId}/potentials`, {
      origin: "upload",
      name,
    });
    const base = `/systems/${systemId}/potentials/${created.id}`;
    const sent = await upload(user, base, file, text);
    await expectStatus(user, 200, "POST", `${base}/upload/complete`, {
      upload_id: sent.upload_id,
      parts: [{ part_number: 1, etag: sent.etag }],
    });
    return waitForPotential(user, systemId, created.id, ["valid", "invalid", "error"]);
  }

  const generateBody = {
    origin: "generate",
    name: "GAFF2 ethanol",
    force_field: "GAFF2",
    charge: "0",
    minimization_steps: 5,
  };

  it("generates a GAFF2 potential for a drawn structure: statuses pushed live, results and the zip", async () => {
    const { token, user } = await signIn();
    const systemId = await smilesSystem(user, "CCO");
    const { socket, messages } = await listen(token);
    try {
      const created = await expectStatus(user, 201, "POST", `/systems/${systemId}/potentials/`, {
        ...generateBody,
        charge: " 0 ",
        description: "for a test",
      });
      expect(created).toMatchObject({
        origin: "generate",
        system_type: "molecule",
        is_draft: false,
        antechamber_potential: { force_field: "GAFF2", charge: 0, minimization_steps: 5 },
        uploaded_potential: null,
      });
      expect(created.potential_execution.status).toBe("waiting_for_resources");
      const done = await waitForPotential(user, systemId, created.id, ["completed", "failed", "error"]);
      expect(done.potential_execution.error_message).toBeNull();
      expect(done.potential_execution.status).toBe("completed");
      expectEthanolResult(done);

      // The statuses went out on the socket as they happened, as execution messages.
      await expectPushedExecution(messages, systemId, created.id);

      // One zip with the GROMACS, Amber and antechamber/parmchk2 files.
      await expectEthanolZip(token, systemId, created.id);

      // The system and the catalogue list it as 'Potential - {name}' with its system type.
      await expectListed(user, systemId, created.id);
    } finally {
      socket.close();
    }
  }, 300_000);

  it("fails with the engine's reason: a net charge the structure cannot have", async () => {
    const { user } = await signIn();
    const systemId = await smilesSystem(user, "CCO");
    const created = await expectStatus(user, 201, "POST", `/systems/${systemId}/potentials`, {
      ...generateBody,
      charge: 1,
    });
    const done = await waitForPotential(user, systemId, created.id, ["completed", "failed", "error"]);
    expect(done.potential_execution).toMatchObject({ status: "failed", error_code: "WRONG_NET_CHARGE" });
    expect(done.potential_execution.error_message).toContain("net charge of 0");
    expect(done.potential_execution.result).toBeNull();
    const files = await user.call("GET", `/systems/${systemId}/potentials/${created.id}/files`);
    expect(files.status).toBe(409);
    expect(errorCode(files.body)).toBe("SYSTEM.GET_FILES.NOT_READY");
  }, 300_000);

  it("fails with the engine's reason: an element GAFF does not have, in an uploaded file", async () => {
    const { user } = await signIn();
    const systemId = await fileSystem(user, ZINC_CHLORIDE_PDB);
    const created = await expectStatus(user, 201, "POST", `/systems/${systemId}/potentials`, generateBody);
    const done = await waitForPotential(user, systemId, created.id, ["completed", "failed", "error"]);
    expect(done.potential_execution).toMatchObject({ status: "failed", error_code: "UNSUPPORTED_ELEMENT" });
    expect(done.potential_execution.error_message).toContain("GAFF has no atom types for Zn");
  }, 300_000);

  it("checks an uploaded .top against the structure: valid, and invalid for another structure", async () => {
    const { token, user } = await signIn();
    const systemId = await fileSystem(user, watersPdb());
    const { socket, messages } = await listen(token);
    try {
      const draft = await uploadDraft(user, systemId);
      await uploadValidTop(user, token, systemId, draft.id);

      // A .top of another structure (four waters) is invalid, and says why.
      const invalid = await uploadedPotential(user, systemId, "Four waters", "four.top", watersTop(4));
      expect(invalid.uploaded_potential.status).toBe("invalid");
      expect(invalid.uploaded_potential.problem).toMatchObject({ code: "INVALID_TOPOLOGY" });
      expect(invalid.uploaded_potential.problem.message).toContain(
        "The topology describes 12 atoms but the structure has 9",
      );

      // A topology without [ defaults ]: the message names it.
      const noDefaults = watersTop(3).replace(/\[ defaults \][^[]*/, "");
      const noDefaultsDone = await uploadedPotential(user, systemId, "No defaults", "nodefaults.top", noDefaults);
      expect(noDefaultsDone.uploaded_potential.problem.message).toContain("no [ defaults ] section");

      const pushed = messages.filter((m) => m.potential_id === draft.id);
      expect(pushed.every((m) => m.message_type === "uploaded_potential_status_updated")).toBe(true);
      expect(pushed.map((m) => m.status)).toEqual(
        expect.arrayContaining(["pending_upload", "uploading", "pending_validation", "validating", "valid"]),
      );
    } finally {
      socket.close();
    }
  }, 300_000);

  it("refuses a .top that includes a file outside its job, with the line and none of the file's text", async () => {
    const { user } = await signIn();
    const systemId = await fileSystem(user, watersPdb());
    // A file in the data directory, where the engine's work directory is two levels down.
    writeFileSync(join(testApp.config.dataDir, "planted.itp"), "[ atoms ]\n1 PLANTED_WORD 1 X X\n");
    const included = ["../../planted.itp", "/proc/net/tcp", "../../no-such-file.itp", "../../upload-signing.key"];
    for (const [index, name] of included.entries()) {
      const top = watersTop(3).replace("[ atoms ]\n", `[ atoms ]\n#include "${name}"\n`);
      const done = await uploadedPotential(user, systemId, `Include ${index}`, `include${index}.top`, top);
      expect(done.uploaded_potential.status).toBe("invalid");
      // The same answer whether the file exists or not, as the potential's problem.
      expect(done.uploaded_potential.problem).toEqual({
        code: "INVALID_TOPOLOGY",
        line: 14,
        message: expect.stringMatching(
          new RegExp(`^include${index}\\.top line 14 includes a file that is not part of this upload\\. `),
        ),
      });
      expect(done.uploaded_potential.problem.message).not.toMatch(/PLANTED_WORD|00000000|tcp|no-such|signing/);
    }
  }, 300_000);

  it("cancels an upload back to the draft, and deletes a draft", async () => {
    const { user } = await signIn();
    const systemId = await fileSystem(user, watersPdb());
    const draft = await expectStatus(user, 201, "POST", `/systems/${systemId}/potentials`, {
      origin: "upload",
      name: "T",
    });
    const base = `/systems/${systemId}/potentials/${draft.id}`;
    const { upload_id } = await upload(user, base, "system.top", watersTop(3));
    await expectStatus(user, 204, "POST", `${base}/upload/cancel`, { upload_id });
    await expectStatus(user, 204, "POST", `${base}/upload/cancel`, { upload_id });
    const back = await expectStatus(user, 200, "GET", base);
    expect(back.uploaded_potential).toMatchObject({ status: "pending_upload", upload_id: null, file: null });
    const stale = await user.call("GET", `${base}/upload/upload_url?upload_id=${upload_id}&part_number=1`);
    expect(stale.status).toBe(404);
    await expectStatus(user, 204, "DELETE", base);
    expect((await user.call("GET", base)).status).toBe(404);
    // The draft is gone: a new one may start.
    await expectStatus(user, 201, "POST", `/systems/${systemId}/potentials`, { origin: "upload", name: "T2" });
  }, 300_000);

  it("deletes a potential while its generation runs: the engine is killed, nothing is left", async () => {
    const { token, user } = await signIn();
    // Large enough that charging takes a while (antechamber/sqm per fragment).
    const systemId = await smilesSystem(user, "CCCCCCCCCCCCCCCCCCCCCCCCCCCCCC(=O)O");
    const created = await expectStatus(user, 201, "POST", `/systems/${systemId}/potentials`, {
      ...generateBody,
      minimization_steps: 1_000_000,
    });
    const pids = await waitFor("the engine to start", async () => {
      const found = await enginesOf(created.id);
      return found.length > 0 ? found : undefined;
    });
    const { socket, messages } = await listen(token);
    try {
      await expectStatus(user, 204, "DELETE", `/systems/${systemId}/potentials/${created.id}`);
      await waitFor("the engine to be killed", async () =>
        (await enginesOf(created.id)).length === 0 ? true : undefined,
      );
      expect(pids.length).toBeGreaterThan(0);
      // Killed before it finished: a run left alone (about 8 s) would have stored its results. Its
      // job has ended once the runner lets it go.
      await waitUntil("the runner to let the job go", () => testApp.app.processing.potentials.activeJobs === 0);
      expect(existsSync(join(testApp.config.dataDir, "files", "potentials", created.id))).toBe(false);
      expect((await user.call("GET", `/systems/${systemId}/potentials/${created.id}`)).status).toBe(404);
      await waitFor("the deleted message", async () =>
        messages.some((m) => m.potential_id === created.id && m.status === "deleted") ? true : undefined,
      );
      const system = await expectStatus(user, 200, "GET", `/systems/${systemId}`);
      expect(system.potentials).toEqual([]);
      // The runner is free again: the next generation runs.
      const next = await expectStatus(user, 201, "POST", `/systems/${systemId}/potentials`, {
        ...generateBody,
        minimization_steps: 1_000_000,
      });
      await waitFor("the next engine to start", async () => ((await enginesOf(next.id)).length > 0 ? true : undefined));
      // Cancel stops it too, and the potential stays, cancelled.
      const cancelled = await expectStatus(
        user,
        200,
        "DELETE",
        `/systems/${systemId}/potentials/${next.id}/process/cancel`,
      );
      expect(cancelled.potential_execution.status).toBe("cancelled");
      await waitFor("the cancelled engine to be killed", async () =>
        (await enginesOf(next.id)).length === 0 ? true : undefined,
      );
      const after = await expectStatus(user, 200, "GET", `/systems/${systemId}/potentials/${next.id}`);
      expect(after.potential_execution.status).toBe("cancelled");
      const twice = await user.call("DELETE", `/systems/${systemId}/potentials/${next.id}/process/cancel`);
      expect(twice.status).toBe(409);
      expect(errorCode(twice.body)).toBe("SYSTEM.CANCEL_POTENTIAL.NOT_RUNNING");
    } finally {
      socket.close();
    }
  }, 300_000);

  it("archives a system while a potential's generation runs: the engine is killed, cancelled, pushed", async () => {
    const { token, user } = await signIn();
    const systemId = await smilesSystem(user, "CCCCCCCCCCCCCCCCCCCCCCCCCCCCCC(=O)O");
    const created = await expectStatus(user, 201, "POST", `/systems/${systemId}/potentials`, {
      ...generateBody,
      minimization_steps: 1_000_000,
    });
    await waitFor("the engine to start", async () => ((await enginesOf(created.id)).length > 0 ? true : undefined));
    const { socket, messages } = await listen(token);
    try {
      await expectStatus(user, 204, "DELETE", `/systems/${systemId}`);
      await waitFor("the engine to be killed", async () =>
        (await enginesOf(created.id)).length === 0 ? true : undefined,
      );
      await waitFor("the cancelled message", async () =>
        messages.some((m) => m.potential_id === created.id && m.status === "cancelled") ? true : undefined,
      );
      const [row] = await testApp.app.database.db.select().from(potentials).where(eq(potentials.id, created.id));
      expect(row?.status).toBe("cancelled");
      // Killed before it finished: no results were stored for the archived system's potential (its
      // job has ended once the runner lets it go).
      await waitUntil("the runner to let the job go", () => testApp.app.processing.potentials.activeJobs === 0);
      expect(existsSync(join(testApp.config.dataDir, "files", "potentials", created.id))).toBe(false);
      expect((await user.call("GET", `/systems/${systemId}/potentials/${created.id}`)).status).toBe(404);
    } finally {
      socket.close();
    }
  }, 300_000);

  it("ends a job whose runners kept dying in error, and pushes it", async () => {
    const { token, user } = await signIn();
    const systemId = await fileSystem(user, watersPdb());
    const draft = await expectStatus(user, 201, "POST", `/systems/${systemId}/potentials`, {
      origin: "upload",
      name: "T",
    });
    const { socket, messages } = await listen(token);
    try {
      // As a runner that died holding it the third time leaves it: validating, its lease lapsed.
      await testApp.app.database.db
        .update(potentials)
        .set({
          status: "validating",
          leaseOwner: "gone:1:dead",
          leaseExpiresAt: new Date(Date.now() - 60_000),
          attempts: 3,
        })
        .where(eq(potentials.id, draft.id));
      const ended = await waitForPotential(user, systemId, draft.id, ["error", "valid", "invalid"]);
      expect(ended.uploaded_potential).toMatchObject({ status: "error", problem: { code: "INTERRUPTED" } });
      expect(ended.uploaded_potential.problem.message).toContain("interrupted 3 times");
      await waitFor("the error message", async () =>
        messages.some((m) => m.potential_id === draft.id && m.status === "error") ? true : undefined,
      );
    } finally {
      socket.close();
    }
  }, 300_000);

  it("refuses what the rules refuse: structure not ready, organization's force fields, bad numbers", async () => {
    const { user } = await signIn();
    const { id: pending } = await expectStatus(user, 201, "POST", "/systems", {
      name: "Nothing yet",
      origin: "smiles",
    });
    const notReady = await user.call("POST", `/systems/${pending}/potentials`, generateBody);
    expect(notReady.status).toBe(409);
    expect(errorCode(notReady.body)).toBe("SYSTEM.CREATE_POTENTIAL.STRUCTURE_NOT_READY");

    const systemId = await smilesSystem(user, "C");
    const bad = async (body: object, message: string) => {
      const response = await user.call("POST", `/systems/${systemId}/potentials`, { ...generateBody, ...body });
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      expect(JSON.stringify(response.body)).toContain(message);
    };
    await bad({ charge: "abc" }, "Must be a valid number");
    await bad({ charge: "0.5" }, "Must be a whole number");
    await bad({ minimization_steps: -1 }, "Must be at least 0");
    await bad({ force_field: "GLYCAM_06J" }, "");
    const limit = await user.call("POST", `/systems/${systemId}/potentials`, {
      ...generateBody,
      minimization_steps: 2_000_000_000,
    });
    expect(errorCode(limit.body)).toBe("SYSTEM.VALIDATE.JOB_LIMIT");

    // The cosmetics company gets GAFF2 only (SPEC §6).
    const cosmetics = (await signIn("cosmetics")).user;
    const theirs = await smilesSystem(cosmetics, "C");
    const gaff = await cosmetics.call("POST", `/systems/${theirs}/potentials`, {
      ...generateBody,
      force_field: "GAFF",
    });
    expect(gaff.status).toBe(400);
    expect(errorCode(gaff.body)).toBe("SYSTEM.CREATE_POTENTIAL.FORCE_FIELD_NOT_ALLOWED");
    expect(gaff.body.errors[0].args).toMatchObject({ force_field: "GAFF", allowed: "GAFF2" });
    const gaff2 = await expectStatus(cosmetics, 201, "POST", `/systems/${theirs}/potentials`, generateBody);
    await expectStatus(cosmetics, 204, "DELETE", `/systems/${theirs}/potentials/${gaff2.id}`);

    // A polymer-builder system has no potentials of this kind.
    const draft = await expectStatus(user, 201, "POST", "/systems/draft");
    const builder = await user.call("GET", `/systems/${draft.id}/potentials`);
    expect(builder.status).toBe(404); // a draft is not in the catalogue
  }, 300_000);

  it("answers 404 for another user's system or potential, and for a potential of another system", async () => {
    const owner = (await signIn()).user;
    const stranger = (await signIn()).user;
    const systemId = await smilesSystem(owner, "C");
    const otherSystem = await smilesSystem(owner, "O");
    const potential = await expectStatus(owner, 201, "POST", `/systems/${systemId}/potentials`, {
      origin: "upload",
      name: "Mine",
    });
    const base = `/systems/${systemId}/potentials/${potential.id}`;
    const calls: Array<[string, "GET" | "POST" | "DELETE", string, object?]> = [
      ["list", "GET", `/systems/${systemId}/potentials`],
      ["create", "POST", `/systems/${systemId}/potentials`, generateBody],
      ["get", "GET", base],
      ["delete", "DELETE", base],
      ["cancel", "DELETE", `${base}/process/cancel`],
      ["begin", "POST", `${base}/upload/begin`, { file: "a.top", file_size: 10 }],
      ["url", "GET", `${base}/upload/upload_url?upload_id=x&part_number=1`],
      ["parts", "GET", `${base}/upload/parts?upload_id=x`],
      ["complete", "POST", `${base}/upload/complete`, { upload_id: "x", parts: [{ part_number: 1, etag: "e" }] }],
      ["cancel upload", "POST", `${base}/upload/cancel`, { upload_id: "x" }],
      ["files", "GET", `${base}/files`],
    ];
    for (const [what, method, url, payload] of calls) {
      const response = await stranger.call(method, url, payload);
      expect(response.status, `${what}: ${JSON.stringify(response.body)}`).toBe(404);
      expect(errorCode(response.body), what).toBe("SYSTEM.GET.NOT_FOUND");
    }
    // …also when the body or query is refused: the foreign id is looked at first.
    for (const [what, method, url] of calls) {
      if (method === "DELETE") continue;
      const refused = await stranger.call(
        method,
        method === "GET" ? url.replace(/\?.*$/, "?part_number=0") : url,
        method === "POST" ? { name: 42, unknown: [] } : undefined,
      );
      expect(refused.status, `${what} refused: ${JSON.stringify(refused.body)}`).toBe(404);
    }
    const ownRefused = await owner.call("POST", `${base}/upload/begin`, { file: 42 });
    expect(ownRefused.status).toBe(400);
    // The owner's potential under the owner's other system, and an unknown id.
    for (const url of [
      `/systems/${otherSystem}/potentials/${potential.id}`,
      `/systems/${systemId}/potentials/00000000-0000-4000-8000-000000000000`,
    ]) {
      const response = await owner.call("GET", url);
      expect(response.status).toBe(404);
      expect(errorCode(response.body)).toBe("SYSTEM.VALIDATE.POTENTIAL_NOT_FOUND");
      expect((await owner.call("DELETE", url)).status).toBe(404);
    }
    const malformed = await owner.call("GET", `/systems/${systemId}/potentials/not-a-uuid`);
    expect(malformed.status).toBe(400);
    expect(errorCode(malformed.body)).toBe("SYSTEM.VALIDATE.POTENTIAL_INVALID_ID");
    // Nothing of the owner's changed.
    expect((await expectStatus(owner, 200, "GET", base)).uploaded_potential.status).toBe("pending_upload");
  }, 300_000);
});
