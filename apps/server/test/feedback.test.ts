import { CommonErrors } from "@polyforge/contracts/errors";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { feedback } from "../src/modules/feedback/schema";
import { useTestApp } from "./support/app";
import { databaseKinds } from "./support/database";
import { userClaims } from "./support/tokens";

describe.each(databaseKinds())("feedback on %s", (kind) => {
  const t = useTestApp(kind);

  const send = async (claims: ReturnType<typeof userClaims>, payload: unknown) =>
    t.app.inject({
      method: "PUT",
      url: "/api/v2/feedback",
      headers: { authorization: `Bearer ${await t.issuer.sign(claims)}` },
      payload: payload as object,
    });

  it("stores the feedback for the caller, with the default title when none is given", async () => {
    const ada = userClaims();
    const res = await send(ada, { description: "  The builder is great  " });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ title: "User feedback", description: "The builder is great" });

    const titled = await send(ada, { title: "Speed", description: "Faster please" });
    expect(titled.json().title).toBe("Speed");

    const rows = await t.app.database.db.select().from(feedback).where(eq(feedback.ownerId, ada.sub));
    expect(rows.map((r) => r.title).sort()).toEqual(["Speed", "User feedback"]);
  });

  it("refuses an empty description with 400 naming the field, and stores nothing", async () => {
    const grace = userClaims();
    for (const payload of [{ title: "x", description: "   " }, { title: "x" }]) {
      const res = await send(grace, payload);
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0]).toMatchObject({
        error_code: CommonErrors.VALIDATION_ERROR,
        args: { field: "description" },
      });
    }
    const rows = await t.app.database.db.select().from(feedback).where(eq(feedback.ownerId, grace.sub));
    expect(rows).toHaveLength(0);
  });

  it("answers malformed JSON with 400 VALIDATION on the body", async () => {
    const res = await t.app.inject({
      method: "PUT",
      url: "/api/v2/feedback",
      headers: {
        authorization: `Bearer ${await t.issuer.sign(userClaims())}`,
        "content-type": "application/json",
      },
      payload: '{"description": ',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ error_code: CommonErrors.VALIDATION_ERROR, args: { field: "body" } });
  });

  it("requires sign-in", async () => {
    const res = await t.app.inject({ method: "PUT", url: "/api/v2/feedback", payload: { description: "hi" } });
    expect(res.statusCode).toBe(401);
  });
});
