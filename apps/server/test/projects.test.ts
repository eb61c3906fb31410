import { ProjectErrors, SystemErrors } from "@polyforge/contracts/errors";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectSystems } from "../src/modules/projects/schema";
import { systems } from "../src/modules/systems/schema";
import { startTestApp, type TestApp } from "./support/app";
import { databaseKinds } from "./support/database";
import { type Caller, caller, errorCode, expectStatus } from "./support/polymer-builder";
import { finishedPolyethylene } from "./support/processing";
import { userClaims } from "./support/tokens";

/** /api/v2/projects (SPEC §3, §5, §7) and the filing of systems under projects. */
describe.each(databaseKinds())("projects on %s", (kind) => {
  let testApp: TestApp;
  const tokens = new WeakMap<Caller, string>();
  const newUser = async () => {
    const token = await testApp.issuer.sign(userClaims());
    const user = caller(testApp, token);
    tokens.set(user, token);
    return user;
  };
  /** PUT is not among the shared caller's verbs. */
  const put = async (user: Caller, url: string) => {
    const response = await testApp.app.inject({
      method: "PUT",
      url: `/api/v2${url}`,
      headers: { authorization: `Bearer ${tokens.get(user)}` },
    });
    return { status: response.statusCode, body: response.json() };
  };

  beforeAll(async () => {
    testApp = await startTestApp(kind, {}, { runJobs: false });
  });
  afterAll(() => testApp.close());

  it("creates, lists, filters, reads, updates and deletes the caller's projects", async () => {
    const ada = await newUser();
    const created = await expectStatus(ada, 201, "POST", "/projects", {
      name: "  Polyolefins  ",
      description: "Melts for the rheology study",
    });
    expect(created).toMatchObject({ name: "Polyolefins", description: "Melts for the rheology study", system_ids: [] });
    const other = await expectStatus(ada, 201, "POST", "/projects", { name: "Peptides" });
    expect(other.description).toBeNull();

    const all = await expectStatus(ada, 200, "GET", "/projects?page_num=1&page_size=100");
    expect(all.metadata).toEqual({ page_num: 1, page_size: 100, num_records: 2 });
    expect(all.data.map((p: { name: string }) => p.name).sort()).toEqual(["Peptides", "Polyolefins"]);
    const byName = await expectStatus(ada, 200, "GET", "/projects?name=OLEF");
    expect(byName.data.map((p: { id: string }) => p.id)).toEqual([created.id]);
    const byDescription = await expectStatus(ada, 200, "GET", "/projects?description=rheology");
    expect(byDescription.data.map((p: { id: string }) => p.id)).toEqual([created.id]);
    expect((await expectStatus(ada, 200, "GET", "/projects?name=%25")).metadata.num_records).toBe(0);
    const paged = await expectStatus(ada, 200, "GET", "/projects?page_size=1&page_num=2");
    expect(paged.data).toHaveLength(1);

    expect(await expectStatus(ada, 200, "GET", `/projects/${created.id}`)).toMatchObject({ name: "Polyolefins" });
    const renamed = await expectStatus(ada, 200, "PATCH", `/projects/${created.id}`, {
      name: "Polyolefin melts",
      description: "",
    });
    expect(renamed).toMatchObject({ name: "Polyolefin melts", description: null });
    const kept = await expectStatus(ada, 200, "PATCH", `/projects/${created.id}`, { description: "PE and PP" });
    expect(kept).toMatchObject({ name: "Polyolefin melts", description: "PE and PP" });

    expect((await ada.call("DELETE", `/projects/${other.id}`)).status).toBe(204);
    expect(errorCode((await ada.call("GET", `/projects/${other.id}`)).body)).toBe(ProjectErrors.GET_NOT_FOUND);
    expect(errorCode((await ada.call("DELETE", `/projects/${other.id}`)).body)).toBe(ProjectErrors.DELETE_NOT_FOUND);
  });

  it("refuses a missing or too long name with the field's message, and a name already used", async () => {
    const bea = await newUser();
    for (const body of [{ name: "   " }, { description: "no name" }, { name: "x".repeat(256) }]) {
      const response = await bea.call("POST", "/projects", body);
      expect(response.status).toBe(400);
      expect(response.body.errors[0].args.field).toBe("name");
    }
    await expectStatus(bea, 201, "POST", "/projects", { name: "Dendrimers" });
    // A double-clicked Create sends the same body twice: the second is refused, one project remains.
    const twice = await bea.call("POST", "/projects", { name: "dendrimers" });
    expect(twice.status).toBe(409);
    expect(errorCode(twice.body)).toBe(ProjectErrors.VALIDATE_NAME_NOT_UNIQUE);
    const second = await expectStatus(bea, 201, "POST", "/projects", { name: "Second" });
    const clash = await bea.call("PATCH", `/projects/${second.id}`, { name: "DENDRIMERS" });
    expect(errorCode(clash.body)).toBe(ProjectErrors.VALIDATE_NAME_NOT_UNIQUE);
    expect((await expectStatus(bea, 200, "GET", "/projects")).metadata.num_records).toBe(2);
    // Another user may use the same name.
    await expectStatus(await newUser(), 201, "POST", "/projects", { name: "Dendrimers" });
    expect(errorCode((await bea.call("GET", "/projects/not-a-uuid")).body)).toBe(ProjectErrors.VALIDATE_INVALID_ID);
    expect((await bea.call("GET", "/projects?page_size=101")).status).toBe(400);
  });

  it("answers 404 for another user's project on every call, and leaves it untouched", async () => {
    const owner = await newUser();
    const stranger = await newUser();
    const project = await expectStatus(owner, 201, "POST", "/projects", { name: "Private" });
    const system = await finishedPolyethylene(owner, { name: "Owner's melt" });
    await put(owner, `/projects/${project.id}/systems/${system.id}`);
    const strangerSystem = await finishedPolyethylene(stranger, { name: "Stranger's melt" });

    expect(errorCode((await stranger.call("GET", `/projects/${project.id}`)).body)).toBe(ProjectErrors.GET_NOT_FOUND);
    const patch = await stranger.call("PATCH", `/projects/${project.id}`, { name: "Mine" });
    expect([patch.status, errorCode(patch.body)]).toEqual([404, ProjectErrors.UPDATE_NOT_FOUND]);
    const del = await stranger.call("DELETE", `/projects/${project.id}`);
    expect([del.status, errorCode(del.body)]).toEqual([404, ProjectErrors.DELETE_NOT_FOUND]);
    const file = await put(stranger, `/projects/${project.id}/systems/${strangerSystem.id}`);
    expect([file.status, errorCode(file.body)]).toEqual([404, ProjectErrors.UPDATE_NOT_FOUND]);
    const unfile = await stranger.call("DELETE", `/projects/${project.id}/systems/${system.id}`);
    expect(unfile.status).toBe(404);
    const list = await stranger.call("GET", `/systems?project_id=${project.id}`);
    expect([list.status, errorCode(list.body)]).toEqual([404, ProjectErrors.GET_NOT_FOUND]);
    expect((await expectStatus(stranger, 200, "GET", "/projects")).metadata.num_records).toBe(0);

    // The owner cannot file a stranger's system under their own project either.
    const foreignSystem = await put(owner, `/projects/${project.id}/systems/${strangerSystem.id}`);
    expect([foreignSystem.status, errorCode(foreignSystem.body)]).toEqual([404, SystemErrors.GET_NOT_FOUND]);
    const still = await expectStatus(owner, 200, "GET", `/projects/${project.id}`);
    expect(still).toMatchObject({ name: "Private", system_ids: [system.id] });
  });

  it("files systems under a project, filters the catalogue by it, moves them, and deleting keeps the systems", async () => {
    const cy = await newUser();
    const melts = await expectStatus(cy, 201, "POST", "/projects", { name: "Melts" });
    const chains = await expectStatus(cy, 201, "POST", "/projects", { name: "Chains" });
    const a = await finishedPolyethylene(cy, { name: "Melt A", copies: 2 });
    const b = await finishedPolyethylene(cy, { name: "Melt B", copies: 2 });
    const loose = await finishedPolyethylene(cy, { name: "Loose", copies: 2 });

    expect((await put(cy, `/projects/${melts.id}/systems/${a.id}`)).body.system_ids).toEqual([a.id]);
    const both = await put(cy, `/projects/${melts.id}/systems/${b.id}`);
    expect(both.body.system_ids).toEqual([a.id, b.id]);
    // Filing twice changes nothing.
    expect((await put(cy, `/projects/${melts.id}/systems/${b.id}`)).body.system_ids).toEqual([a.id, b.id]);

    const filtered = await expectStatus(cy, 200, "GET", `/systems?type=system&project_id=${melts.id}`);
    expect(filtered.data.map((s: { name: string }) => s.name).sort()).toEqual(["Melt A", "Melt B"]);
    expect(filtered.metadata.num_records).toBe(2);
    const empty = await expectStatus(cy, 200, "GET", `/systems?type=system&project_id=${chains.id}`);
    expect(empty.metadata.num_records).toBe(0);
    expect((await expectStatus(cy, 200, "GET", "/systems?type=system")).metadata.num_records).toBe(3);

    // A system is in one project at most: filing it elsewhere moves it.
    const moved = await put(cy, `/projects/${chains.id}/systems/${b.id}`);
    expect(moved.body.system_ids).toEqual([b.id]);
    expect((await expectStatus(cy, 200, "GET", `/projects/${melts.id}`)).system_ids).toEqual([a.id]);
    const out = await expectStatus(cy, 200, "DELETE", `/projects/${chains.id}/systems/${b.id}`);
    expect(out.system_ids).toEqual([]);

    // An archived system leaves the project's list but its filing is not what keeps it.
    await put(cy, `/projects/${melts.id}/systems/${loose.id}`);
    expect((await cy.call("DELETE", `/systems/${loose.id}`)).status).toBe(204);
    expect((await expectStatus(cy, 200, "GET", `/projects/${melts.id}`)).system_ids).toEqual([a.id]);

    expect((await cy.call("DELETE", `/projects/${melts.id}`)).status).toBe(204);
    const db = testApp.app.database.db;
    expect(await db.select().from(projectSystems).where(eq(projectSystems.projectId, melts.id))).toHaveLength(0);
    const [kept] = await db.select().from(systems).where(eq(systems.id, a.id));
    expect(kept?.archivedAt).toBeNull();
    const catalogue = await expectStatus(cy, 200, "GET", "/systems?type=system");
    expect(catalogue.data.map((s: { name: string }) => s.name).sort()).toEqual(["Melt A", "Melt B"]);
  });
});
