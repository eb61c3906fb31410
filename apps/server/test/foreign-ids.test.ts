import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./support/app";
import { databaseKinds } from "./support/database";
import { type Caller, caller, expectStatus } from "./support/polymer-builder";
import { finishedPolyethylene } from "./support/processing";
import { userClaims } from "./support/tokens";

type Operation = { method: string; path: string; operation: { parameters?: Array<{ in: string; name: string }> } };

type Ids = {
  system: string;
  draft: string;
  block: string;
  segment: string;
  polymer: string;
  setup: string;
  protocol: string;
  project: string | undefined;
  molecular: string | undefined;
};
type IdFor = (path: string, name: string) => string | undefined;
type MatrixRow = { operation: string; status: number; body: boolean };

/** The owner's resources: a finished system (with its block, segment, polymer), a new draft with
 * its setup and protocol, a project, a molecular system. */
async function ownerResources(owner: Caller): Promise<Ids> {
  const system = await finishedPolyethylene(owner, { copies: 2, units: 2 });
  const draft = await expectStatus(owner, 201, "POST", "/systems/draft");
  const block = (
    await expectStatus(owner, 201, "POST", "/building_blocks", {
      type: "linear",
      name: "Mine",
      data: { repeating_unit: "[*:1]CC[*:2]" },
    })
  ).id as string;
  const segment = (
    await expectStatus(owner, 201, "POST", "/segments", {
      name: "Seg",
      type: "linear_block",
      data: { total_building_blocks: 2 },
      blocks: [{ building_block_id: block, order: 1, occurrence: 2 }],
    })
  ).id as string;
  const polymer = (
    await expectStatus(owner, 201, "POST", "/polymers", {
      name: "P",
      force_field: "gaff2",
      segments: [{ segment_id: segment, occurrence: 1, order: 1 }],
    })
  ).id as string;
  const setup = (await expectStatus(owner, 200, "GET", "/polymer_builder_systems/system_setup/draft")).id as string;
  const protocol = (await expectStatus(owner, 200, "GET", "/polymer_builder_systems/simulation_protocol/draft"))
    .id as string;
  const project = (await owner.call("POST", "/projects", { name: "Mine" })).body?.id as string | undefined;
  const molecular = (await owner.call("POST", "/systems", { name: "Water", origin: "from_file" })).body?.id as
    | string
    | undefined;
  return { system: system.id, draft: draft.id as string, block, segment, polymer, setup, protocol, project, molecular };
}

/** The owner's id for a path parameter of an operation. */
function idResolver(ids: Ids): IdFor {
  return (path, name) => {
    if (name === "systemId") return path.startsWith("/api/v2/projects") ? ids.system : (ids.molecular ?? ids.system);
    if (path.startsWith("/api/v2/building_blocks")) return ids.block;
    if (path.startsWith("/api/v2/segments")) return ids.segment;
    if (path.startsWith("/api/v2/polymers")) return ids.polymer;
    if (path.includes("system_setup")) return ids.setup;
    if (path.includes("simulation_protocol")) return ids.protocol;
    if (path.startsWith("/api/v2/projects")) return ids.project;
    if (path === "/api/v2/systems/{id}/draft") return ids.draft;
    if (path.startsWith("/api/v2/systems")) return ids.system;
    return undefined;
  };
}

/** Bodies the schema accepts, for the operations that need one. */
function acceptedBodies(polymer: string): Record<string, object> {
  return {
    "PATCH /api/v2/building_blocks/{id}": { name: "Taken" },
    "PATCH /api/v2/segments/{id}": { name: "Taken" },
    "PATCH /api/v2/polymers/{id}": { name: "Taken" },
    "PATCH /api/v2/polymer_builder_systems/system_setup/{id}": {
      polymers: [{ polymer_id: polymer, order: 1, occurrence: 1 }],
      cell_dimension_selector: "density",
      potential_wall_z: false,
      density: 0.1,
      construction_order: "as_listed_in_components",
    },
    "PATCH /api/v2/polymer_builder_systems/simulation_protocol/{id}": {
      simulation: "MD",
      random_seed: 1,
      minimization: false,
      dynamics: false,
    },
    "PATCH /api/v2/systems/{id}/draft": { name: "Taken", is_draft: false },
    "PATCH /api/v2/projects/{id}": { name: "Taken" },
    "POST /api/v2/systems/{systemId}/smiles": { smiles: "CCO" },
  };
}

const QUERIES: Record<string, string> = {
  "PATCH /api/v2/building_blocks/{id}/draft": "?draft_status=true",
  "GET /api/v2/systems/{systemId}/upload/upload_url": "?upload_id=u1&part_number=1",
  "GET /api/v2/systems/{systemId}/upload/parts": "?upload_id=u1",
};

/** Every operation of the OpenAPI document whose path names a resource. */
async function resourceOperations(t: TestApp): Promise<Operation[]> {
  const doc = (await t.app.inject({ method: "GET", url: "/api/docs/openapi.json" })).json();
  return Object.entries(doc.paths as Record<string, Record<string, Operation["operation"]>>)
    .flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ method, path, operation })))
    .filter(({ path }) => /\{(id|systemId)\}/.test(path));
}

/** Each operation called by a fresh user with the owner's ids and an accepted body where known. */
async function foreignIdMatrix(
  t: TestApp,
  operations: Operation[],
  idFor: IdFor,
  bodies: Record<string, object>,
): Promise<MatrixRow[]> {
  const matrix: MatrixRow[] = [];
  for (const { method, path } of operations) {
    const key = `${method.toUpperCase()} ${path}`;
    let url = path;
    for (const [, name] of path.matchAll(/\{(\w+)\}/g)) {
      const id = name === "name" ? "system.pdb" : idFor(path, name!);
      if (id === undefined) throw new Error(`no id of the owner for ${name} in ${key}`);
      url = url.replace(`{${name}}`, id);
    }
    const response = await t.app.inject({
      method: method.toUpperCase() as "GET",
      url: `${url}${QUERIES[key] ?? ""}`,
      headers: { authorization: `Bearer ${await t.issuer.sign(userClaims())}` },
      ...(bodies[key] ? { payload: bodies[key] } : method === "get" || method === "delete" ? {} : { payload: {} }),
    });
    matrix.push({
      operation: key,
      status: response.statusCode,
      body: method === "get" || method === "delete" || !!bodies[key],
    });
  }
  return matrix;
}

/** The same operations with a body or query their schema refuses. */
async function refusedInputMatrix(
  t: TestApp,
  operations: Operation[],
  idFor: IdFor,
): Promise<Array<{ operation: string; status: number }>> {
  const refused: Array<{ operation: string; status: number }> = [];
  for (const { method, path } of operations) {
    if (method === "get" && !QUERIES[`GET ${path}`]) continue;
    if (method === "delete") continue;
    let url = path;
    for (const [, name] of path.matchAll(/\{(\w+)\}/g)) {
      url = url.replace(`{${name}}`, name === "name" ? "system.pdb" : idFor(path, name!)!);
    }
    const response = await t.app.inject({
      method: method.toUpperCase() as "GET",
      url,
      headers: { authorization: `Bearer ${await t.issuer.sign(userClaims())}` },
      ...(method === "get" ? {} : { payload: { name: 42, unknown: [] } }),
    });
    refused.push({ operation: `${method.toUpperCase()} ${path}`, status: response.statusCode });
  }
  return refused;
}

/**
 * Issue 23 figures: the foreign-id matrix. Every operation of the OpenAPI document that names a
 * resource in its path is called by another user with the owner's ids (and a body the schema
 * accepts where one is known): each must answer 404, never the resource. Operations added later are
 * covered by the same loop; one whose body is not known here must at least never succeed.
 */
describe.each(databaseKinds())("another user's ids on %s", (kind) => {
  let t: TestApp;
  let owner: Caller;
  let intruder: Caller;
  beforeAll(async () => {
    t = await startTestApp(kind, {}, { runJobs: false });
    owner = caller(t, await t.issuer.sign(userClaims()));
    intruder = caller(t, await t.issuer.sign(userClaims()));
  });
  afterAll(() => t?.close());

  it("answers 404 on every operation of the OpenAPI document", async () => {
    const ids = await ownerResources(owner);
    // The intruder has a draft of their own, so draft routes reach the id check.
    await expectStatus(intruder, 201, "POST", "/systems/draft");

    const idFor = idResolver(ids);
    const operations = await resourceOperations(t);
    const matrix = await foreignIdMatrix(t, operations, idFor, acceptedBodies(ids.polymer));
    // The same operations with a body or query their schema refuses: the foreign id still answers
    // 404 (it is looked at before the rest), never a 400 that says the resource is there.
    const refused = await refusedInputMatrix(t, operations, idFor);
    console.log(
      `foreign ids with refused input: ${refused.length} operations; not 404: ${refused
        .filter((row) => row.status !== 404)
        .map((row) => `${row.operation} ${row.status}`)
        .join(", ")}`,
    );
    const answered404 = matrix.filter((row) => row.status === 404).length;
    const others = matrix.filter((row) => row.status !== 404).map((row) => `${row.operation} ${row.status}`);
    console.log(
      `foreign-id matrix: ${matrix.length} operations, ${answered404} answered 404; others: ${others.join(", ")}`,
    );
    expect(refused.filter((row) => row.status !== 404)).toEqual([]);
    // Every operation with a known body (or none needed) answers 404; none ever succeeds.
    expect(matrix.filter((row) => row.body && row.status !== 404)).toEqual([]);
    expect(matrix.filter((row) => row.status < 400)).toEqual([]);
    expect(matrix.filter((row) => row.body).length).toBeGreaterThanOrEqual(20);
    void intruder;
  });
});
