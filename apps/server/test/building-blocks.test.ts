import { randomUUID } from "node:crypto";
import type { BuildingBlock } from "@polyforge/contracts/building-blocks";
import { BuildingBlockErrors, CommonErrors } from "@polyforge/contracts/errors";
import type { ListResponse } from "@polyforge/contracts/pagination";
import { CONNECTION_RULES, checkConnectionSmiles } from "@polyforge/contracts/smiles/connection-rules";
import { loadRDKit } from "@polyforge/contracts/smiles/rdkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SAMPLE_BLOCKS } from "../src/modules/building-blocks/sample-blocks";
import { startTestApp, type TestApp } from "./support/app";
import { databaseKinds } from "./support/database";
import { userClaims } from "./support/tokens";

const BASE = "/api/v2/building_blocks";
const LINEAR = { type: "linear", name: "Polyethylene", data: { repeating_unit: "[*:1]CC[*:2]" } };
const DENDRIMER = {
  type: "dendrimer",
  name: "PPI",
  data: { central_unit: "[*:2]N([*:2])CCCCN([*:2])[*:2]", repeating_unit: "[*:1]CCCN([*:2])[*:2]" },
};

describe.each(databaseKinds())("building blocks API on %s", (kind) => {
  let testApp: TestApp;
  let alice: string;
  let bob: string;

  beforeAll(async () => {
    testApp = await startTestApp(kind);
    alice = await testApp.issuer.sign(userClaims());
    bob = await testApp.issuer.sign(userClaims());
  });
  afterAll(() => testApp.close());

  async function call(token: string, method: "GET" | "POST" | "PATCH" | "DELETE", url: string, payload?: object) {
    const response = await testApp.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}` },
      ...(payload ? { payload } : {}),
    });
    return { status: response.statusCode, body: response.json() };
  }

  const list = async (token: string, query = "") =>
    (await call(token, "GET", `${BASE}?${query}`)) as { status: number; body: ListResponse<BuildingBlock> };

  async function create(token: string, body: object = LINEAR): Promise<BuildingBlock> {
    const { status, body: block } = await call(token, "POST", BASE, body);
    expect(status).toBe(201);
    return block;
  }

  const errorCode = (body: { errors: { error_code: string }[] }) => body.errors[0]?.error_code;

  it("requires a signed-in caller", async () => {
    const response = await testApp.app.inject({ method: "GET", url: BASE });
    expect(response.statusCode).toBe(401);
  });

  it("gives a new user the sample blocks, all valid under the connection rules", async () => {
    const carol = await testApp.issuer.sign(userClaims());
    const { body } = await list(carol, "type=linear&type=dendrimer&page_size=100");
    expect(body.data.map((block) => block.name).sort()).toEqual(SAMPLE_BLOCKS.map((block) => block.name).sort());
    expect(body.metadata).toEqual({ page_num: 1, page_size: 100, num_records: SAMPLE_BLOCKS.length });

    const rdkit = await loadRDKit();
    for (const block of body.data) {
      const fields =
        block.type === "linear"
          ? { repeating_unit: CONNECTION_RULES.linearRepeatingUnit }
          : {
              central_unit: CONNECTION_RULES.dendrimerCentralUnit,
              repeating_unit: CONNECTION_RULES.dendrimerRepeatingUnit,
            };
      for (const [field, rule] of Object.entries(fields)) {
        expect(checkConnectionSmiles(rdkit, block.data[field] ?? "", rule), `${block.name} ${field}`).toBeNull();
      }
    }
  });

  it("creates a linear block with version 0 and the default caps, and gets it", async () => {
    const block = await create(alice);
    expect(block).toMatchObject({
      name: "Polyethylene",
      type: "linear",
      version: 0,
      draft: false,
      archived: false,
      description: null,
      data: { repeating_unit: "[*:1]CC[*:2]", head_repeating_unit: "[*:2][H]", tail_repeating_unit: "[*:1][H]" },
    });
    expect(Date.parse(block.created_at)).not.toBeNaN();
    const { status, body } = await call(alice, "GET", `${BASE}/${block.id}`);
    expect(status).toBe(200);
    expect(body).toEqual(block);
  });

  it("creates a dendrimer block with its default caps", async () => {
    const block = await create(alice, DENDRIMER);
    expect(block.data).toEqual({
      ...DENDRIMER.data,
      capping_central_unit: "[*:1][H]",
      head_repeating_unit: "[*:2][H]",
      tail_repeating_unit: "[*:1][H]",
    });
  });

  it.each([
    ["unparseable", "[*:1]C(C[*:2]", BuildingBlockErrors.VALIDATE_SMILES_INVALID_FORMAT],
    ["a bare *", "*CC[*:2]", BuildingBlockErrors.VALIDATE_SMILES_MISSING_BRACKETS],
    ["an unlabelled marker", "[*]CC[*:2]", BuildingBlockErrors.VALIDATE_SMILES_MISSING_LABEL],
    ["label 3", "[*:3]CC[*:2]", BuildingBlockErrors.VALIDATE_SMILES_INVALID_CONNECTIONS],
    ["two [*:2]", "[*:1]C([*:2])C[*:2]", BuildingBlockErrors.VALIDATE_SMILES_INVALID_CONNECTIONS],
  ])("refuses a repeating unit that is %s, saving nothing", async (_, smiles, code) => {
    const before = (await list(alice, "type=linear")).body.metadata.num_records;
    const { status, body } = await call(alice, "POST", BASE, { ...LINEAR, data: { repeating_unit: smiles } });
    expect(status).toBe(400);
    expect(errorCode(body)).toBe(code);
    expect(body.errors[0].args.field).toBe("repeating_unit");
    expect((await list(alice, "type=linear")).body.metadata.num_records).toBe(before);
  });

  it("answers the spec's message for a wrong connection count", async () => {
    const { body } = await call(alice, "POST", BASE, {
      ...DENDRIMER,
      data: { ...DENDRIMER.data, head_repeating_unit: "C([*:2])[*:2]" },
    });
    expect(body.errors[0]).toEqual({
      error_code: BuildingBlockErrors.VALIDATE_SMILES_INVALID_CONNECTIONS,
      args: { field: "head_repeating_unit", message: "This SMILES must contain exactly one [*:2] connection" },
    });
  });

  it.each([
    [
      "type aminoacid",
      { type: "aminoacid", name: "X", data: { one_letter_code: "X", three_letter_code: "Xxx" } },
      BuildingBlockErrors.VALIDATE_TYPE_INVALID,
    ],
    ["an unknown type", { ...LINEAR, type: "branched" }, BuildingBlockErrors.VALIDATE_TYPE_INVALID],
    ["no type", { name: "X", data: LINEAR.data }, BuildingBlockErrors.VALIDATE_TYPE_INVALID],
    ["an empty name", { ...LINEAR, name: "" }, CommonErrors.VALIDATION_ERROR],
    ["a 256-character name", { ...LINEAR, name: "n".repeat(256) }, CommonErrors.VALIDATION_ERROR],
    ["a version other than 0", { ...LINEAR, version: 2 }, CommonErrors.VALIDATION_ERROR],
  ])("refuses to create a block with %s", async (_, payload, code) => {
    const { status, body } = await call(alice, "POST", BASE, payload);
    expect(status).toBe(400);
    expect(errorCode(body)).toBe(code);
  });

  it("accepts a 255-character name", async () => {
    const block = await create(alice, { ...LINEAR, name: "n".repeat(255) });
    expect(block.name).toHaveLength(255);
  });

  describe("listing", () => {
    let dave: string;
    beforeAll(async () => {
      dave = await testApp.issuer.sign(userClaims());
      // Dave starts with the sample blocks; add seven of his own.
      for (let i = 1; i <= 7; i++) await create(dave, { ...LINEAR, name: `Chain ${i}` });
    });

    it("pages with metadata, most recently modified first", async () => {
      const total = SAMPLE_BLOCKS.length + 7;
      const first = await list(dave, "type=linear&type=dendrimer&page_num=1&page_size=5");
      expect(first.status).toBe(200);
      expect(first.body.metadata).toEqual({ page_num: 1, page_size: 5, num_records: total });
      expect(first.body.data.map((block) => block.name)).toEqual([
        "Chain 7",
        "Chain 6",
        "Chain 5",
        "Chain 4",
        "Chain 3",
      ]);
      const last = await list(dave, "type=linear&type=dendrimer&page_num=3&page_size=5");
      expect(last.body.data).toHaveLength(total - 10);
      const beyond = await list(dave, "type=linear&type=dendrimer&page_num=9&page_size=5");
      expect(beyond.body.data).toEqual([]);
      expect(beyond.body.metadata.num_records).toBe(total);
    });

    it("defaults to page 1 of 10 and every type, aminoacids included", async () => {
      const { body } = await list(dave);
      expect(body.metadata).toEqual({ page_num: 1, page_size: 10, num_records: SAMPLE_BLOCKS.length + 7 + 20 });
    });

    it("filters by type", async () => {
      const { body } = await list(dave, "type=dendrimer");
      expect(body.data.map((block) => block.name)).toEqual(["PAMAM"]);
    });

    it("filters by name, case-insensitively, taking % and _ literally", async () => {
      expect((await list(dave, "name=cHaIn")).body.metadata.num_records).toBe(7);
      expect((await list(dave, "name=styr")).body.data.map((block) => block.name)).toEqual(["Styrene"]);
      expect((await list(dave, "name=%25")).body.metadata.num_records).toBe(0);
      expect((await list(dave, "name=_")).body.metadata.num_records).toBe(0);
    });

    it("filters by version", async () => {
      const [block] = (await list(dave, "name=Chain 1")).body.data;
      await call(dave, "PATCH", `${BASE}/${block?.id}`, { data: { repeating_unit: "[*:1]CCC[*:2]" } });
      expect((await list(dave, "version=1")).body.data.map((b) => b.name)).toEqual(["Chain 1"]);
      expect((await list(dave, "type=linear&version=0")).body.metadata.num_records).toBe(SAMPLE_BLOCKS.length - 1 + 6);
    });

    it("lists the 20 natural amino acids under type aminoacid, with their codes", async () => {
      const { body } = await list(dave, "type=aminoacid&page_size=50");
      expect(body.metadata.num_records).toBe(20);
      const codes = body.data
        .map((block) => block.data.one_letter_code)
        .sort()
        .join("");
      expect(codes).toBe("ACDEFGHIKLMNPQRSTVWY");
      const proline = body.data.find((block) => block.name === "Proline");
      expect(proline?.data).toEqual({
        one_letter_code: "P",
        three_letter_code: "Pro",
        repeating_unit: "[*:1]N1CCC[C@H]1C(=O)[*:2]",
      });
      const rdkit = await loadRDKit();
      for (const block of body.data) {
        expect(
          checkConnectionSmiles(rdkit, block.data.repeating_unit ?? "", CONNECTION_RULES.linearRepeatingUnit),
        ).toBeNull();
      }
    });

    it.each([
      ["page_size=0", CommonErrors.VALIDATION_ERROR],
      ["page_size=101", CommonErrors.VALIDATION_ERROR],
      ["page_num=0", CommonErrors.VALIDATION_ERROR],
      ["type=branched", BuildingBlockErrors.VALIDATE_TYPE_INVALID],
      ["type=linear&type=nope", BuildingBlockErrors.VALIDATE_TYPE_INVALID],
    ])("refuses %s", async (query, code) => {
      const { status, body } = await call(dave, "GET", `${BASE}?${query}`);
      expect(status).toBe(400);
      expect(errorCode(body)).toBe(code);
    });
  });

  it("patches name, description and data, bumping the version only when the data changes", async () => {
    const block = await create(alice, { ...LINEAR, name: "Before" });
    const renamed = await call(alice, "PATCH", `${BASE}/${block.id}`, { name: "After", description: "Renamed" });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: "After", description: "Renamed", version: 0, data: block.data });
    expect(Date.parse(renamed.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(block.updated_at));

    const changed = await call(alice, "PATCH", `${BASE}/${block.id}`, { data: { tail_repeating_unit: "[*:1]C" } });
    expect(changed.body).toMatchObject({ version: 1, data: { ...block.data, tail_repeating_unit: "[*:1]C" } });

    const bad = await call(alice, "PATCH", `${BASE}/${block.id}`, { data: { tail_repeating_unit: "[*:2]C" } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].args).toEqual({
      field: "tail_repeating_unit",
      message: "This SMILES can only contain [*:1] connections",
    });
    expect((await call(alice, "GET", `${BASE}/${block.id}`)).body.data.tail_repeating_unit).toBe("[*:1]C");

    const emptyName = await call(alice, "PATCH", `${BASE}/${block.id}`, { name: "" });
    expect(emptyName.status).toBe(400);
  });

  it("keeps the chemistry of a block a segment uses (UPDATE.IN_USE) but lets it be renamed", async () => {
    const block = await create(alice, { ...LINEAR, name: "Used by a segment" });
    await call(alice, "POST", "/api/v2/systems/draft");
    const segment = await call(alice, "POST", "/api/v2/segments", {
      name: "uses the block",
      type: "linear_block",
      data: { total_building_blocks: 2 },
      blocks: [{ building_block_id: block.id, order: 1, occurrence: 2 }],
    });
    expect(segment.status).toBe(201);

    const change = await call(alice, "PATCH", `${BASE}/${block.id}`, { data: { repeating_unit: "[*:1]CCC[*:2]" } });
    expect(change.status).toBe(409);
    expect(errorCode(change.body)).toBe(BuildingBlockErrors.UPDATE_IN_USE);
    const renamed = await call(alice, "PATCH", `${BASE}/${block.id}`, {
      name: "Renamed while used",
      data: { repeating_unit: "[*:1]CC[*:2]" }, // unchanged data is no change
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: "Renamed while used", version: 0, data: block.data });
  });

  it("archives (soft) and recovers a block", async () => {
    const block = await create(alice, { ...LINEAR, name: "To archive" });
    const archived = await call(alice, "DELETE", `${BASE}/${block.id}`);
    expect(archived.status).toBe(200);
    expect(archived.body.archived).toBe(true);
    expect((await list(alice, "name=To archive")).body.data).toEqual([]);
    expect((await list(alice, "name=To archive&show_archived=true")).body.data.map((b) => b.id)).toEqual([block.id]);
    // Still readable by id while archived.
    expect((await call(alice, "GET", `${BASE}/${block.id}`)).body.archived).toBe(true);

    const recovered = await call(alice, "PATCH", `${BASE}/${block.id}/recover`);
    expect(recovered.status).toBe(200);
    expect(recovered.body.archived).toBe(false);
    expect((await list(alice, "name=To archive")).body.data.map((b) => b.id)).toEqual([block.id]);

    const again = await call(alice, "PATCH", `${BASE}/${block.id}/recover`);
    expect(again.status).toBe(409);
    expect(errorCode(again.body)).toBe(BuildingBlockErrors.RECOVER_NOT_ARCHIVED);
  });

  it("marks blocks for the draft and lists them", async () => {
    const block = await create(alice, { ...LINEAR, name: "Draft me" });
    const marked = await call(alice, "PATCH", `${BASE}/${block.id}/draft?draft_status=true`);
    expect(marked.body.draft).toBe(true);
    const drafts = await call(alice, "GET", `${BASE}/draft?page_size=100`);
    expect(drafts.body.data.map((b: BuildingBlock) => b.id)).toEqual([block.id]);
    expect(drafts.body.metadata).toEqual({ page_num: 1, page_size: 100, num_records: 1 });

    await call(alice, "PATCH", `${BASE}/${block.id}/draft?draft_status=false`);
    expect((await call(alice, "GET", `${BASE}/draft`)).body.data).toEqual([]);

    const missingStatus = await call(alice, "PATCH", `${BASE}/${block.id}/draft`);
    expect(missingStatus.status).toBe(400);
  });

  it("archiving takes a block out of the draft, and an archived block cannot join it", async () => {
    const block = await create(alice, { ...LINEAR, name: "Draft then archive" });
    await call(alice, "PATCH", `${BASE}/${block.id}/draft?draft_status=true`);
    await call(alice, "DELETE", `${BASE}/${block.id}`);
    expect((await call(alice, "GET", `${BASE}/draft`)).body.data).toEqual([]);
    const refused = await call(alice, "PATCH", `${BASE}/${block.id}/draft?draft_status=true`);
    expect(refused.status).toBe(409);
    expect(errorCode(refused.body)).toBe(BuildingBlockErrors.UPDATE_DRAFT_FAILED);
  });

  it("keeps aminoacids read-only: 409, the block's state refuses a valid request", async () => {
    const [glycine] = (await list(alice, "type=aminoacid&name=glycine")).body.data;
    expect(glycine?.data.three_letter_code).toBe("Gly");
    const id = glycine?.id;
    expect((await call(alice, "GET", `${BASE}/${id}`)).status).toBe(200);
    for (const [method, url, payload] of [
      ["PATCH", `${BASE}/${id}`, { name: "Mine now" }],
      ["DELETE", `${BASE}/${id}`, undefined],
      ["PATCH", `${BASE}/${id}/recover`, undefined],
      ["PATCH", `${BASE}/${id}/draft?draft_status=true`, undefined],
    ] as const) {
      const { status, body } = await call(alice, method, url, payload);
      expect(status, `${method} ${url}`).toBe(409);
      expect(errorCode(body)).toBe(BuildingBlockErrors.VALIDATE_TYPE_INVALID);
    }
    expect((await call(alice, "GET", `${BASE}/${id}`)).body).toEqual(glycine);
  });

  it("hides one user's blocks from another: 404 on get, patch, archive, recover, draft", async () => {
    const block = await create(alice, { ...LINEAR, name: "Alice's secret" });
    const cases = [
      ["GET", `${BASE}/${block.id}`, BuildingBlockErrors.GET_NOT_FOUND],
      ["PATCH", `${BASE}/${block.id}`, BuildingBlockErrors.UPDATE_NOT_FOUND],
      ["DELETE", `${BASE}/${block.id}`, BuildingBlockErrors.DELETE_NOT_FOUND],
      ["PATCH", `${BASE}/${block.id}/recover`, BuildingBlockErrors.RECOVER_NOT_FOUND],
      ["PATCH", `${BASE}/${block.id}/draft?draft_status=true`, BuildingBlockErrors.UPDATE_NOT_FOUND],
    ] as const;
    for (const [method, url, code] of cases) {
      const { status, body } = await call(
        bob,
        method,
        url,
        method === "PATCH" && !url.includes("?") ? { name: "x" } : undefined,
      );
      expect(status, `${method} ${url}`).toBe(404);
      expect(errorCode(body)).toBe(code);
    }
    expect((await list(bob, "name=secret")).body.data).toEqual([]);
    expect((await list(bob, "name=secret&show_archived=true")).body.data).toEqual([]);
    // Untouched for Alice.
    expect((await call(alice, "GET", `${BASE}/${block.id}`)).body).toEqual(block);
  });

  it("answers 404 for an unknown id and VALIDATE.ID_INVALID_FORMAT for a malformed one", async () => {
    const unknown = await call(alice, "GET", `${BASE}/${randomUUID()}`);
    expect(unknown.status).toBe(404);
    expect(errorCode(unknown.body)).toBe(BuildingBlockErrors.GET_NOT_FOUND);
    for (const [method, url] of [
      ["GET", `${BASE}/not-a-uuid`],
      ["PATCH", `${BASE}/not-a-uuid`],
      ["DELETE", `${BASE}/not-a-uuid`],
      ["PATCH", `${BASE}/not-a-uuid/recover`],
    ] as const) {
      const { status, body } = await call(
        alice,
        method,
        url,
        method === "PATCH" && !url.endsWith("recover") ? {} : undefined,
      );
      expect(status, `${method} ${url}`).toBe(400);
      expect(errorCode(body)).toBe(BuildingBlockErrors.VALIDATE_ID_INVALID_FORMAT);
    }
  });
});
