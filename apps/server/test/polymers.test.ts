import { CommonErrors, PolymerErrors, SegmentErrors } from "@polyforge/contracts/errors";
import { MESO_FRACTION_MESSAGE } from "@polyforge/contracts/polymers";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { polymers } from "../src/modules/polymers/schema";
import { startTestApp, type TestApp } from "./support/app";
import { databaseKinds } from "./support/database";
import {
  type Caller,
  caller,
  createPolymer,
  createSegment,
  errorCode,
  expectStatus,
  linearBlock,
  linearBlockSegment,
  saveSetup,
  startDraft,
} from "./support/polymer-builder";
import { userClaims } from "./support/tokens";

describe.each(databaseKinds())("polymers API on %s", (kind) => {
  let testApp: TestApp;
  let alice: Caller;
  let segA: string;
  let segB: string;

  beforeAll(async () => {
    testApp = await startTestApp(kind);
    alice = caller(testApp, await testApp.issuer.sign(userClaims({ organization: "other" })));
    await startDraft(alice);
    const block = await linearBlock(alice);
    segA = await createSegment(alice, linearBlockSegment("A", [[block, 2]]));
    segB = await createSegment(alice, linearBlockSegment("B", [[block, 3]]));
  });
  afterAll(() => testApp.close());

  const body = (overrides: object = {}) => ({
    name: "AB",
    force_field: "gaff2",
    segments: [
      { segment_id: segA, occurrence: 2, order: 1 },
      { segment_id: segB, occurrence: 1, order: 2 },
    ],
    ...overrides,
  });

  async function rejected(payload: object, status: number, code: string, user = alice) {
    const response = await user.call("POST", "/polymers", payload);
    expect(response.status, JSON.stringify(response.body)).toBe(status);
    expect(errorCode(response.body)).toBe(code);
  }

  it("creates a linear polymer with its segments in order", async () => {
    const polymer = await expectStatus(alice, 201, "POST", "/polymers", body());
    expect(polymer).toMatchObject({
      name: "AB",
      force_field: "gaff2",
      segments: [
        { segment_id: segA, occurrence: 2, order: 1, segment: { name: "A", type: "linear_block" } },
        { segment_id: segB, occurrence: 1, order: 2, segment: { name: "B" } },
      ],
    });
    expect(await expectStatus(alice, 200, "GET", `/polymers/${polymer.id}`)).toEqual(polymer);
    const list = await expectStatus(alice, 200, "GET", "/polymers/draft?name=ab");
    expect(list.metadata.num_records).toBe(1);
  });

  it("answers each polymer rule with its code", async () => {
    const segments = (a: [number, number], b: [number, number]) => [
      { segment_id: segA, occurrence: a[0], order: a[1] },
      { segment_id: segB, occurrence: b[0], order: b[1] },
    ];
    await rejected(body({ segments: segments([1, 0], [1, 1]) }), 400, PolymerErrors.VALIDATE_SEGMENT_ORDER_POSITIVE);
    await rejected(body({ segments: segments([1, 2], [1, 2]) }), 400, PolymerErrors.VALIDATE_SEGMENT_ORDER_DUPLICATE);
    await rejected(
      body({ segments: segments([0, 1], [1, 2]) }),
      400,
      PolymerErrors.VALIDATE_SEGMENT_OCCURRENCE_POSITIVE,
    );
    await rejected(body({ force_field: "extended_glycam_06j" }), 400, PolymerErrors.VALIDATE_FORCE_FIELD);
    await rejected(body({ name: " " }), 400, CommonErrors.VALIDATION_ERROR);
    await rejected(body({ segments: [] }), 400, CommonErrors.VALIDATION_ERROR);
    await rejected(
      body({ segments: [{ segment_id: crypto.randomUUID(), occurrence: 1, order: 1 }] }),
      404,
      SegmentErrors.GET_NOT_FOUND,
    );
  });

  it("offers the cosmetics company its own force fields, in either spelling", async () => {
    const carol = caller(testApp, await testApp.issuer.sign(userClaims({ organization: "cosmetics" })));
    await startDraft(carol);
    const block = await linearBlock(carol);
    const segment = await createSegment(carol, linearBlockSegment("S", [[block, 1]]));
    const seg = [{ segment_id: segment, occurrence: 1, order: 1 }];
    await rejected({ name: "p", force_field: "gaff", segments: seg }, 400, PolymerErrors.VALIDATE_FORCE_FIELD, carol);
    const polymer = await expectStatus(carol, 201, "POST", "/polymers", {
      name: "p",
      force_field: "extended glycam06j",
      segments: seg,
    });
    expect(polymer.force_field).toBe("extended_glycam_06j");
    // Another user's segment is not found.
    await rejected(body(), 404, SegmentErrors.GET_NOT_FOUND, carol);
  });

  it("patches and deletes a polymer; deleting takes it out of the setup", async () => {
    const id = await createPolymer(alice, "to change", [[segA, 1]]);
    const patched = await expectStatus(alice, 200, "PATCH", `/polymers/${id}`, {
      force_field: "glycam06j",
      segments: [{ segment_id: segB, occurrence: 4, order: 1 }],
    });
    expect(patched).toMatchObject({ name: "to change", force_field: "glycam_06j", segments: [{ segment_id: segB }] });

    await saveSetup(alice, [[id, 2]]);
    await expectStatus(alice, 204, "DELETE", `/polymers/${id}`);
    const setup = await expectStatus(alice, 200, "GET", "/polymer_builder_systems/system_setup/draft");
    expect(setup.polymers).toEqual([]);
    expect(errorCode((await alice.call("DELETE", `/polymers/${id}`)).body)).toBe(PolymerErrors.DELETE_NOT_FOUND);
    expect(errorCode((await alice.call("GET", "/polymers/123")).body)).toBe(PolymerErrors.VALIDATE_ID_INVALID_FORMAT);
  });

  it("stores the tacticity: atactic 0.5 by default, a kind without a meso fraction keeps the stored one", async () => {
    const plain = await expectStatus(alice, 201, "POST", "/polymers", body({ name: "default tacticity" }));
    expect(plain.tacticity).toEqual({ kind: "atactic", meso_fraction: 0.5 });

    const chosen = await expectStatus(
      alice,
      201,
      "POST",
      "/polymers",
      body({ name: "PS 70% meso", tacticity: { kind: "atactic", meso_fraction: 0.7 } }),
    );
    expect(chosen.tacticity).toEqual({ kind: "atactic", meso_fraction: 0.7 });
    const iso = await expectStatus(alice, 200, "PATCH", `/polymers/${chosen.id}`, { tacticity: { kind: "isotactic" } });
    expect(iso.tacticity).toEqual({ kind: "isotactic", meso_fraction: 0.7 });
    expect((await expectStatus(alice, 200, "GET", `/polymers/${chosen.id}`)).tacticity).toEqual(iso.tacticity);
    // Another field's patch leaves it alone.
    const renamed = await expectStatus(alice, 200, "PATCH", `/polymers/${chosen.id}`, { name: "PS iso" });
    expect(renamed.tacticity).toEqual({ kind: "isotactic", meso_fraction: 0.7 });
    const syndio = await expectStatus(alice, 200, "PATCH", `/polymers/${chosen.id}`, {
      tacticity: { kind: "syndiotactic", meso_fraction: 0.1 },
    });
    expect(syndio.tacticity).toEqual({ kind: "syndiotactic", meso_fraction: 0.1 });
  });

  it("refuses a meso fraction outside [0, 1] or an unknown kind with a validation error naming the field", async () => {
    for (const meso_fraction of [-0.1, 1.5]) {
      const response = await alice.call("POST", "/polymers", body({ tacticity: { kind: "atactic", meso_fraction } }));
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      expect(response.body).toEqual({
        errors: [
          {
            error_code: CommonErrors.VALIDATION_ERROR,
            args: { field: "tacticity.meso_fraction", message: MESO_FRACTION_MESSAGE },
          },
        ],
      });
    }
    await rejected(body({ tacticity: { kind: "heterotactic" } }), 400, CommonErrors.VALIDATION_ERROR);
    const id = await createPolymer(alice, "bounded", [[segA, 1]]);
    const patch = await alice.call("PATCH", `/polymers/${id}`, { tacticity: { kind: "atactic", meso_fraction: 2 } });
    expect(patch.status).toBe(400);
    expect(patch.body.errors[0]).toMatchObject({
      error_code: CommonErrors.VALIDATION_ERROR,
      args: { field: "tacticity.meso_fraction", message: MESO_FRACTION_MESSAGE },
    });
    expect((await expectStatus(alice, 200, "GET", `/polymers/${id}`)).tacticity).toEqual({
      kind: "atactic",
      meso_fraction: 0.5,
    });
  });

  it("reads a polymer row written without a tacticity (before migration 0013) as atactic 0.5", async () => {
    const id = await createPolymer(alice, "old row", [[segA, 1]]);
    const db = testApp.app.database.db;
    const [stored] = await db.select().from(polymers).where(eq(polymers.id, id));
    const [old] = await db
      .insert(polymers)
      .values({ ownerId: stored!.ownerId, systemId: stored!.systemId, name: "written by hand", forceField: "gaff" })
      .returning();
    expect(old).toMatchObject({ tacticity: "atactic", mesoFraction: 0.5 });
    expect((await expectStatus(alice, 200, "GET", `/polymers/${old!.id}`)).tacticity).toEqual({
      kind: "atactic",
      meso_fraction: 0.5,
    });
  });

  it("hides one user's polymers from another", async () => {
    const id = await createPolymer(alice, "private", [[segA, 1]]);
    const bob = caller(testApp, await testApp.issuer.sign(userClaims()));
    await startDraft(bob);
    expect(errorCode((await bob.call("GET", `/polymers/${id}`)).body)).toBe(PolymerErrors.GET_NOT_FOUND);
    expect((await bob.call("PATCH", `/polymers/${id}`, { name: "mine" })).status).toBe(404);
    expect((await bob.call("DELETE", `/polymers/${id}`)).status).toBe(404);
    expect((await expectStatus(bob, 200, "GET", "/polymers")).metadata.num_records).toBe(0);
  });
});
