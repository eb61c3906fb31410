import { CommonErrors, UserErrors } from "@polyforge/contracts/errors";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword, verifyPassword } from "../src/platform/identity/passwords";
import { users } from "../src/platform/identity/schema";
import { startTestApp, type TestApp } from "./support/app";
import { databaseKinds } from "./support/database";
import { type TestUserClaims, userClaims } from "./support/tokens";

describe.each(databaseKinds())("users on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind);
  });
  afterAll(() => t?.close());

  const call = async (claims: TestUserClaims, method: "GET" | "PUT", url: string, payload?: object) =>
    t.app.inject({ method, url, payload, headers: { authorization: `Bearer ${await t.issuer.sign(claims)}` } });
  const userRow = async (id: string) => (await t.app.database.db.select().from(users).where(eq(users.id, id)))[0]!;

  it("updates names and the remote-support toggle, and each user sees only their own account", async () => {
    const ada = userClaims();
    const bob = userClaims({ given_name: "Bob", family_name: "Builder" });
    const updated = await call(ada, "PUT", "/api/v2/users/account", {
      first_name: " Augusta ",
      last_name: "King",
      allow_impersonation: true,
    });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toMatchObject({ first_name: "Augusta", last_name: "King", allow_impersonation: true });

    const adaAccount = (await call(ada, "GET", "/api/v2/users/account")).json();
    expect(adaAccount).toMatchObject({ id: ada.sub, email: ada.email, first_name: "Augusta" });
    const bobAccount = (await call(bob, "GET", "/api/v2/users/account")).json();
    expect(bobAccount).toMatchObject({ id: bob.sub, email: bob.email, first_name: "Bob", allow_impersonation: false });
  });

  it("refuses an empty first name with the spec's message", async () => {
    const res = await call(userClaims(), "PUT", "/api/v2/users/account", {
      first_name: "",
      last_name: "King",
      allow_impersonation: false,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toEqual({
      error_code: CommonErrors.VALIDATION_ERROR,
      args: { field: "first_name", message: "You must enter a first name" },
    });
  });

  it("keeps an SSO user's names but lets them change the remote-support toggle", async () => {
    const sso = userClaims({ identity_provider: "corporate-sso", given_name: "Sam" });
    const res = await call(sso, "PUT", "/api/v2/users/account", {
      first_name: "Changed",
      last_name: "Changed",
      allow_impersonation: true,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ first_name: "Sam", last_name: "Lovelace", allow_impersonation: true });
  });

  it("changes the password to a hash the sign-in verifies", async () => {
    const ada = userClaims();
    await call(ada, "GET", "/api/v2/users/account");
    await t.app.database.db
      .update(users)
      .set({ passwordHash: await hashPassword("Old-Passw0rd!") })
      .where(eq(users.id, ada.sub));
    const res = await call(ada, "PUT", "/api/v2/users/password", {
      current_password: "Old-Passw0rd!",
      new_password: "New-Passw0rd!",
      confirm_new_password: "New-Passw0rd!",
    });
    expect(res.statusCode).toBe(204);
    const { passwordHash } = await userRow(ada.sub);
    expect(passwordHash).toMatch(/^scrypt\$/);
    expect(await verifyPassword("New-Passw0rd!", passwordHash!)).toBe(true);
    expect(await verifyPassword("Other-Passw0rd!", passwordHash!)).toBe(false);
  });

  it.each([
    ["short", "Sh0rt!", "Sh0rt!", "new_password", "Password must be at least 8 characters long"],
    [
      "no uppercase",
      "lower-passw0rd!",
      "lower-passw0rd!",
      "new_password",
      "Password must have at least one uppercase letter",
    ],
    ["the product's name", "My-PolyForge-1", "My-PolyForge-1", "new_password", 'Password cannot contain "PolyForge"'],
    ["a mismatch", "New-Passw0rd!", "New-Passw0rd?", "confirm_new_password", "Passwords do not match"],
    [
      "too long",
      `Long-0${"x".repeat(123)}`,
      `Long-0${"x".repeat(123)}`,
      "new_password",
      "Password can have at most 128 characters",
    ],
  ])("refuses %s with the spec's message", async (_case, password, confirmation, field, message) => {
    const claims = userClaims();
    const res = await call(claims, "PUT", "/api/v2/users/password", {
      current_password: "Old-Passw0rd!",
      new_password: password,
      confirm_new_password: confirmation,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toEqual({ error_code: CommonErrors.VALIDATION_ERROR, args: { field, message } });
    expect((await userRow(claims.sub)).passwordHash).toBeNull();
  });

  it("refuses a password change for an SSO user", async () => {
    const res = await call(userClaims({ identity_provider: "corporate-sso" }), "PUT", "/api/v2/users/password", {
      current_password: "Old-Passw0rd!",
      new_password: "New-Passw0rd!",
      confirm_new_password: "New-Passw0rd!",
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().errors[0].error_code).toBe(UserErrors.UPDATE_PASSWORD_FAILED);
  });
});
