import { BuildingBlockErrors, CommonErrors, SegmentErrors } from "@polyforge/contracts/errors";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./support/app";
import { databaseKinds } from "./support/database";
import {
  aminoacids,
  type Caller,
  caller,
  createPolymer,
  createSegment,
  errorCode,
  expectStatus,
  linearBlock,
  linearBlockSegment,
  startDraft,
} from "./support/polymer-builder";
import { userClaims } from "./support/tokens";

describe.each(databaseKinds())("segments API on %s", (kind) => {
  let testApp: TestApp;
  let alice: Caller;
  let pe: string;
  let ps: string;
  let aa: Map<string, string>;

  beforeAll(async () => {
    testApp = await startTestApp(kind);
    alice = caller(testApp, await testApp.issuer.sign(userClaims()));
    await startDraft(alice);
    pe = await linearBlock(alice, "PE");
    ps = await linearBlock(alice, "PS");
    aa = await aminoacids(alice);
  });
  afterAll(() => testApp.close());

  async function rejected(body: object, status: number, code: string) {
    const response = await alice.call("POST", "/segments", body);
    expect(response.status, JSON.stringify(response.body)).toBe(status);
    expect(errorCode(response.body)).toBe(code);
    return response.body.errors[0];
  }

  it("creates a linear block segment and answers it with its blocks in order", async () => {
    const segment = await expectStatus(
      alice,
      201,
      "POST",
      "/segments",
      linearBlockSegment("PE-b-PS", [
        [pe, 2],
        [ps, 3],
      ]),
    );
    expect(segment).toMatchObject({
      name: "PE-b-PS",
      type: "linear_block",
      data: { total_building_blocks: 5 },
      blocks: [
        { building_block_id: pe, order: 1, occurrence: 2, ratio: null, building_block: { name: "PE", type: "linear" } },
        { building_block_id: ps, order: 2, occurrence: 3, building_block: { name: "PS" } },
      ],
    });
    expect(await expectStatus(alice, 200, "GET", `/segments/${segment.id}`)).toEqual(segment);
  });

  it("creates a linear random segment with ratios and multiplier", async () => {
    const segment = await expectStatus(alice, 201, "POST", "/segments", {
      name: "random",
      type: "linear_random",
      data: { total_building_blocks: 12, multiplier: 3 },
      blocks: [
        { building_block_id: pe, order: 1, ratio: 1 },
        { building_block_id: ps, order: 2, ratio: 3 },
      ],
    });
    expect(segment.data).toEqual({ total_building_blocks: 12, multiplier: 3 });
  });

  it.each([
    ["oneLetter", "GAG"],
    ["threeLetter", "Gly-Ala-Gly"],
  ])("creates a peptide from a %s sequence with synthetic capping", async (naming, sequence) => {
    const ids = [aa.get("G")!, aa.get("A")!, aa.get("G")!];
    const segment = await expectStatus(alice, 201, "POST", "/segments", {
      name: `peptide ${naming}`,
      type: "linear_peptide",
      data: { total_building_blocks: 3, sequence, sequence_naming: naming },
      blocks: ids.map((id, i) => ({ building_block_id: id, order: i + 1, occurrence: 1 })),
    });
    expect(segment.data).toMatchObject({ capping_type: "synthetic", sequence, total_building_blocks: 3 });
    expect(segment.blocks.map((b: { building_block: { type: string } }) => b.building_block.type)).toEqual([
      "aminoacid",
      "aminoacid",
      "aminoacid",
    ]);
  });

  it("rejects peptide sequences with the spec's messages and blocks that do not match", async () => {
    const peptide = (sequence: string, naming: string, blocks = [aa.get("G")!]) => ({
      name: "bad peptide",
      type: "linear_peptide",
      data: { total_building_blocks: blocks.length, sequence, sequence_naming: naming },
      blocks: blocks.map((id, i) => ({ building_block_id: id, order: i + 1, occurrence: 1 })),
    });
    const error = await rejected(peptide("GXZ", "oneLetter"), 400, CommonErrors.VALIDATION_ERROR);
    expect(error.args.message).toBe("Invalid aminoacid code(s): X, Z. Please use only valid one-letter codes.");
    const casing = await rejected(peptide("Gly-ALA", "threeLetter"), 400, CommonErrors.VALIDATION_ERROR);
    expect(casing.args.message).toMatch(/^All three-letter codes must use consistent format/);
    const mismatch = await rejected(peptide("A", "oneLetter"), 400, CommonErrors.VALIDATION_ERROR);
    expect(mismatch.args.field).toBe("blocks");
  });

  it("answers each segment rule with its code", async () => {
    /** One block without an occurrence or a ratio, in a segment of `type`. */
    const bareBlock = (type: string) => ({
      name: "m",
      type,
      data: { total_building_blocks: 1 },
      blocks: [{ building_block_id: pe, order: 1 }],
    });
    await rejected(
      { ...linearBlockSegment("m", [[pe, 2]]), data: { total_building_blocks: 3 } },
      400,
      SegmentErrors.VALIDATE_TOTAL_BUILDING_BLOCKS_MISMATCH,
    );
    await rejected(bareBlock("linear_block"), 400, SegmentErrors.VALIDATE_LINEAR_BLOCK_OCCURRENCE_REQUIRED);
    await rejected(linearBlockSegment("m", [[pe, 0]]), 400, SegmentErrors.VALIDATE_INVALID_BLOCK_OCCURRENCE_OR_RATIO);
    await rejected(bareBlock("linear_random"), 400, SegmentErrors.VALIDATE_RANDOM_BLOCK_RATIO_REQUIRED);
    await rejected({ ...linearBlockSegment("m", [[pe, 1]]), type: "star" }, 400, SegmentErrors.VALIDATE_INVALID_TYPE);
    await rejected(linearBlockSegment("m", [[aa.get("G")!, 1]]), 400, SegmentErrors.VALIDATE_INVALID_TYPE);
    await rejected(linearBlockSegment("", [[pe, 1]]), 400, CommonErrors.VALIDATION_ERROR);
  });

  it("keeps segment names unique in the draft", async () => {
    await createSegment(alice, linearBlockSegment("unique", [[pe, 1]]));
    await rejected(linearBlockSegment("unique", [[ps, 1]]), 409, SegmentErrors.VALIDATE_NAME_NOT_UNIQUE);
  });

  it("refuses another user's, an archived or an unknown block", async () => {
    const bob = caller(testApp, await testApp.issuer.sign(userClaims()));
    const bobs = await linearBlock(bob);
    await rejected(linearBlockSegment("foreign", [[bobs, 1]]), 404, BuildingBlockErrors.GET_NOT_FOUND);
    const archived = await linearBlock(alice);
    await expectStatus(alice, 200, "DELETE", `/building_blocks/${archived}`);
    await rejected(linearBlockSegment("archived", [[archived, 1]]), 404, BuildingBlockErrors.GET_NOT_FOUND);
    await rejected(linearBlockSegment("unknown", [[crypto.randomUUID(), 1]]), 404, BuildingBlockErrors.GET_NOT_FOUND);
  });

  it("lists the draft's segments by name and type, with pagination metadata", async () => {
    const list = await expectStatus(alice, 200, "GET", "/segments/draft?type=linear_random&page_size=5");
    expect(list.metadata).toEqual({ page_num: 1, page_size: 5, num_records: 1 });
    expect(list.data[0].name).toBe("random");
    const byName = await expectStatus(alice, 200, "GET", "/segments?name=PEPTIDE");
    expect(byName.data.map((s: { name: string }) => s.name).sort()).toEqual([
      "peptide oneLetter",
      "peptide threeLetter",
    ]);
    expect((await alice.call("GET", "/segments?page_size=101")).status).toBe(400);
  });

  it("patches a segment as a whole: new blocks replace the old, rules still apply", async () => {
    const id = await createSegment(alice, linearBlockSegment("to patch", [[pe, 1]]));
    const patched = await expectStatus(alice, 200, "PATCH", `/segments/${id}`, {
      data: { total_building_blocks: 7 },
      blocks: [
        { building_block_id: ps, order: 1, occurrence: 4 },
        { building_block_id: pe, order: 2, occurrence: 3 },
      ],
    });
    expect(patched.blocks.map((b: { building_block_id: string }) => b.building_block_id)).toEqual([ps, pe]);
    const bad = await alice.call("PATCH", `/segments/${id}`, { data: { total_building_blocks: 8 } });
    expect(errorCode(bad.body)).toBe(SegmentErrors.VALIDATE_TOTAL_BUILDING_BLOCKS_MISMATCH);
    expect(errorCode((await alice.call("PATCH", "/segments/nope", { name: "x" })).body)).toBe(
      SegmentErrors.VALIDATE_INVALID_ID_FORMAT,
    );
  });

  it("last write wins when two tabs patch one segment at once", async () => {
    const id = await createSegment(alice, linearBlockSegment("race", [[pe, 1]]));
    const variant = (block: string, n: number) => ({
      data: { total_building_blocks: n },
      blocks: Array.from({ length: n }, (_, i) => ({ building_block_id: block, order: i + 1, occurrence: 1 })),
    });
    const results = await Promise.all([
      alice.call("PATCH", `/segments/${id}`, variant(pe, 3)),
      alice.call("PATCH", `/segments/${id}`, variant(ps, 5)),
    ]);
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    const stored = await expectStatus(alice, 200, "GET", `/segments/${id}`);
    const ids = new Set(stored.blocks.map((b: { building_block_id: string }) => b.building_block_id));
    expect(ids.size).toBe(1);
    expect(stored.blocks).toHaveLength(stored.data.total_building_blocks);
  });

  it("deletes a segment unless a polymer uses it; a used block keeps its chemistry", async () => {
    const block = await linearBlock(alice);
    const free = await createSegment(alice, linearBlockSegment("free", [[block, 1]]));
    await expectStatus(alice, 204, "DELETE", `/segments/${free}`);
    expect((await alice.call("GET", `/segments/${free}`)).status).toBe(404);
    expect(errorCode((await alice.call("DELETE", `/segments/${free}`)).body)).toBe(SegmentErrors.DELETE_NOT_FOUND);

    const used = await createSegment(alice, linearBlockSegment("used", [[block, 2]]));
    await createPolymer(alice, "user of used", [[used, 1]]);
    const inUse = await alice.call("DELETE", `/segments/${used}`);
    expect(inUse.status).toBe(409);
    expect(errorCode(inUse.body)).toBe(SegmentErrors.DELETE_IN_USE);

    const change = await alice.call("PATCH", `/building_blocks/${block}`, {
      data: { repeating_unit: "[*:1]CCC[*:2]" },
    });
    expect(change.status).toBe(409);
    expect(errorCode(change.body)).toBe(BuildingBlockErrors.UPDATE_IN_USE);
  });
});
