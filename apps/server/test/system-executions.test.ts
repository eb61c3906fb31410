import { SystemErrors } from "@polyforge/contracts/errors";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemExecutions } from "../src/modules/system-executions/schema";
import { systems } from "../src/modules/systems/schema";
import { startTestApp, type TestApp } from "./support/app";
import { databaseKinds } from "./support/database";
import { caller, errorCode, expectStatus } from "./support/polymer-builder";
import { finishedPolyethylene } from "./support/processing";
import { userClaims } from "./support/tokens";

/** The systems catalogue and the processing calls' rules (SPEC §4, §7, §8). The runner is off, so
 * executions stay where the calls put them. */
describe.each(databaseKinds())("systems catalogue and processing calls on %s", (kind) => {
  let testApp: TestApp;
  const newUser = async () => caller(testApp, await testApp.issuer.sign(userClaims()));

  beforeAll(async () => {
    testApp = await startTestApp(kind, {}, { runJobs: false });
  });
  afterAll(() => testApp.close());

  it("lists the caller's finished systems by type and name, paged, newest first", async () => {
    const alice = await newUser();
    const one = await finishedPolyethylene(alice, { name: "Single chain", copies: 1 });
    const many = await finishedPolyethylene(alice, { name: "Melt A", copies: 3 });
    const other = await finishedPolyethylene(alice, { name: "Melt B", copies: 2 });
    expect([one.type, many.type, other.type]).toEqual(["molecule", "system", "system"]);

    const molecules = await expectStatus(alice, 200, "GET", "/systems?type=molecule");
    expect(molecules.data.map((s: { id: string }) => s.id)).toEqual([one.id]);
    expect(molecules.data[0]).toMatchObject({ potentials: [], system_executions: [], origin: "polymer_builder" });

    const page = await expectStatus(alice, 200, "GET", "/systems?type=system&page_size=1&page_num=2");
    expect(page.metadata).toEqual({ page_num: 2, page_size: 1, num_records: 2 });
    expect(page.data.map((s: { id: string }) => s.id)).toEqual([many.id]);

    const byName = await expectStatus(alice, 200, "GET", "/systems?type=system&name=melt%20b");
    expect(byName.data.map((s: { name: string }) => s.name)).toEqual(["Melt B"]);
    expect((await expectStatus(alice, 200, "GET", "/systems?name=%25")).metadata.num_records).toBe(0);

    const bob = await newUser();
    expect((await expectStatus(bob, 200, "GET", "/systems")).metadata.num_records).toBe(0);
    expect(errorCode((await bob.call("GET", `/systems/${one.id}`)).body)).toBe(SystemErrors.GET_NOT_FOUND);
    expect(errorCode((await alice.call("GET", "/systems/not-a-uuid")).body)).toBe(SystemErrors.VALIDATE_INVALID_ID);
    const badType = await alice.call("GET", "/systems?type=polymer");
    expect(badType.status).toBe(400);
    expect(errorCode(badType.body)).toBe(SystemErrors.GET_INVALID_QUERY);
  });

  it("archives a system: gone from the list and detail, archiving again is 404", async () => {
    const carol = await newUser();
    const system = await finishedPolyethylene(carol);
    expect((await carol.call("DELETE", `/systems/${system.id}`)).status).toBe(204);
    expect((await expectStatus(carol, 200, "GET", "/systems?type=system")).metadata.num_records).toBe(0);
    expect((await carol.call("GET", `/systems/${system.id}`)).status).toBe(404);
    expect(errorCode((await carol.call("DELETE", `/systems/${system.id}`)).body)).toBe(SystemErrors.DELETE_NOT_FOUND);
    const [row] = await testApp.app.database.db.select().from(systems).where(eq(systems.id, system.id));
    expect(row?.archivedAt).toBeInstanceOf(Date); // soft delete
  });

  it("starts once, refuses a second start while active, cancels, and starts again", async () => {
    const dave = await newUser();
    const system = await finishedPolyethylene(dave);
    const started = await expectStatus(dave, 201, "POST", `/systems/${system.id}/process/start`);
    expect(started).toMatchObject({ status: "waiting_for_resources", progress: 0, result_files: [] });

    const again = await dave.call("POST", `/systems/${system.id}/process/start`);
    expect(again.status).toBe(409);
    expect(errorCode(again.body)).toBe(SystemErrors.PROCESS_FAILED);

    const detail = await expectStatus(dave, 200, "GET", `/systems/${system.id}`);
    expect(detail.system_executions).toHaveLength(1);

    const cancelled = await expectStatus(dave, 200, "DELETE", `/systems/${system.id}/process/cancel`);
    expect(cancelled).toMatchObject({ id: started.id, status: "cancelled" });
    const twice = await dave.call("DELETE", `/systems/${system.id}/process/cancel`);
    expect(twice.status).toBe(409);
    expect(errorCode(twice.body)).toBe(SystemErrors.PROCESS_CANCEL_NOT_RUNNING);

    const restarted = await expectStatus(dave, 201, "POST", `/systems/${system.id}/process/start`);
    const list = await expectStatus(dave, 200, "GET", "/systems?type=system");
    expect(list.data[0].system_executions.map((e: { id: string; status: string }) => [e.id, e.status])).toEqual([
      [started.id, "cancelled"],
      [restarted.id, "waiting_for_resources"],
    ]);
  });

  it("two simultaneous starts create one execution", async () => {
    const erin = await newUser();
    const system = await finishedPolyethylene(erin);
    const answers = await Promise.all([1, 2, 3].map(() => erin.call("POST", `/systems/${system.id}/process/start`)));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409]);
    const rows = await testApp.app.database.db
      .select()
      .from(systemExecutions)
      .where(eq(systemExecutions.systemId, system.id));
    expect(rows).toHaveLength(1);
  });

  it("answers the spec's codes: invalid origin, not running, files not ready, other users 404", async () => {
    const frank = await newUser();
    const system = await finishedPolyethylene(frank);

    expect(errorCode((await frank.call("DELETE", `/systems/${system.id}/process/cancel`)).body)).toBe(
      SystemErrors.PROCESS_CANCEL_NOT_RUNNING,
    );
    const files = await frank.call("GET", `/systems/${system.id}/files`);
    expect(files.status).toBe(409);
    expect(errorCode(files.body)).toBe(SystemErrors.GET_FILES_NOT_READY);
    expect(errorCode((await frank.call("GET", `/systems/${system.id}/files/system.pdb`)).body)).toBe(
      SystemErrors.GET_FILES_NOT_READY,
    );

    const grace = await newUser();
    for (const [method, path] of [
      ["POST", "process/start"],
      ["DELETE", "process/cancel"],
      ["GET", "files"],
    ] as const) {
      const answer = await grace.call(method, `/systems/${system.id}/${path}`);
      expect(answer.status, path).toBe(404);
      expect(errorCode(answer.body)).toBe(SystemErrors.GET_NOT_FOUND);
    }

    // A system drawn from SMILES cannot be processed by the builder's pipeline.
    const db = testApp.app.database.db;
    await db.update(systems).set({ origin: "smiles" }).where(eq(systems.id, system.id));
    const invalid = await frank.call("POST", `/systems/${system.id}/process/start`);
    expect(invalid.status).toBe(400);
    expect(errorCode(invalid.body)).toBe(SystemErrors.PROCESS_INVALID_ORIGIN);
  });

  it("archiving a system cancels its queued processing", async () => {
    const hank = await newUser();
    const system = await finishedPolyethylene(hank);
    const started = await expectStatus(hank, 201, "POST", `/systems/${system.id}/process/start`);
    await expectStatus(hank, 204, "DELETE", `/systems/${system.id}`);
    const [row] = await testApp.app.database.db
      .select()
      .from(systemExecutions)
      .where(eq(systemExecutions.id, started.id));
    expect(row?.status).toBe("cancelled");
  });
});
