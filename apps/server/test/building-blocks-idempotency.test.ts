import { CommonErrors } from "@polyforge/contracts/errors";
import { describe, expect, it } from "vitest";
import { useTestApp } from "./support/app";
import { databaseKinds } from "./support/database";
import { userClaims } from "./support/tokens";

/** A create repeated with the same Idempotency-Key (a double-clicked 'Create block') makes one block. */
describe.each(databaseKinds())("building block creation with an Idempotency-Key on %s", (kind) => {
  const t = useTestApp(kind, {}, { runJobs: false });

  const block = { type: "linear", version: 0, name: "Propylene", data: { repeating_unit: "[*:1]CC(C)[*:2]" } };
  const create = async (token: string, key: string | undefined, body: object = block) => {
    const response = await t.app.inject({
      method: "POST",
      url: "/api/v2/building_blocks",
      headers: { authorization: `Bearer ${token}`, ...(key ? { "idempotency-key": key } : {}) },
      payload: body,
    });
    return { status: response.statusCode, body: response.json() };
  };
  const countNamed = async (token: string, name: string) => {
    const response = await t.app.inject({
      method: "GET",
      url: `/api/v2/building_blocks?name=${encodeURIComponent(name)}&page_size=100`,
      headers: { authorization: `Bearer ${token}` },
    });
    return response.json().metadata.num_records as number;
  };

  it("answers the first block for a repeated key, also when both arrive at once", async () => {
    const token = await t.issuer.sign(userClaims());
    const key = crypto.randomUUID();
    const [first, second] = await Promise.all([create(token, key), create(token, key)]);
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body.id).toBe(first.body.id);
    const third = await create(token, key);
    expect(third.body.id).toBe(first.body.id);
    expect(await countNamed(token, "Propylene")).toBe(1);

    // Another key, or none, is another create.
    expect((await create(token, crypto.randomUUID())).body.id).not.toBe(first.body.id);
    await create(token, undefined);
    expect(await countNamed(token, "Propylene")).toBe(3);
  });

  it("keeps keys per user: another user's create with the same key makes their own block", async () => {
    const key = crypto.randomUUID();
    const ada = await t.issuer.sign(userClaims());
    const bob = await t.issuer.sign(userClaims());
    const mine = await create(ada, key);
    const theirs = await create(bob, key);
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect(await countNamed(bob, "Propylene")).toBe(1);
  });

  it("refuses a malformed key with 400 and creates nothing", async () => {
    const token = await t.issuer.sign(userClaims());
    for (const key of ["has space", "x".repeat(201)]) {
      const response = await create(token, key, { ...block, name: "Refused" });
      expect(response.status).toBe(400);
      expect(response.body.errors[0].error_code).toBe(CommonErrors.VALIDATION_ERROR);
    }
    expect(await countNamed(token, "Refused")).toBe(0);
  });
});
