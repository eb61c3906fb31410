import { CommonErrors, UserErrors } from "@polyforge/contracts/errors";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { hashPassword, verifyPassword } from "../src/platform/identity/passwords";
import { users } from "../src/platform/identity/schema";
import { useTestApp } from "./support/app";
import { databaseKinds } from "./support/database";
import { type TestUserClaims, userClaims } from "./support/tokens";

const PASSWORD = "Old-Passw0rd!";
const NEW_PASSWORD = "New-Passw0rd!";

describe.each(databaseKinds())("users on %s", (kind) => {
  const t = useTestApp(kind);

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

  // Staff acting as a user could change that user's password (204 with an impersonation token) and
  // the user's consent to remote support; a session alone could change the password.
  const passwordHash = async (id: string) =>
    (await t.app.database.db.select().from(users).where(eq(users.id, id)))[0]!.passwordHash;

  /** A user of the embedded provider: a row with a password, and remote support allowed or not. */
  async function customer(allowImpersonation: boolean): Promise<TestUserClaims> {
    const claims = userClaims({ allow_impersonation: allowImpersonation });
    expect((await call(claims, "GET", "/api/v2/users/account")).statusCode).toBe(200);
    await t.app.database.db
      .update(users)
      .set({ passwordHash: await hashPassword(PASSWORD), allowImpersonation })
      .where(eq(users.id, claims.sub));
    return claims;
  }
  const asStaff = (claims: TestUserClaims): TestUserClaims => ({
    ...claims,
    impersonator: { id: "9f0c1a52-3c1e-4f7e-9d61-3f4c5b6a7d80", username: "support@polyforge.local" },
  });
  const change = (current: string, next = NEW_PASSWORD) => ({
    current_password: current,
    new_password: next,
    confirm_new_password: next,
  });

  it("refuses a password change while staff act as the user, whatever they send", async () => {
    const ada = await customer(true);
    const before = await passwordHash(ada.sub);
    for (const body of [change(PASSWORD), change("wrong")]) {
      const refused = await call(asStaff(ada), "PUT", "/api/v2/users/password", body);
      expect(refused.statusCode).toBe(403);
      expect(refused.json().errors[0]).toEqual({
        error_code: CommonErrors.FORBIDDEN_INSUFFICIENT_PERMISSIONS,
        args: { reason: "impersonation" },
      });
    }
    expect(await passwordHash(ada.sub)).toBe(before);
    // The user's own session still can.
    expect((await call(ada, "PUT", "/api/v2/users/password", change(PASSWORD))).statusCode).toBe(204);
  });

  it("refuses a change of the consent to remote support while staff act as the user, not a change of names", async () => {
    const ada = await customer(true);
    const withdraw = await call(asStaff(ada), "PUT", "/api/v2/users/account", {
      first_name: "Ada",
      last_name: "Lovelace",
      allow_impersonation: false,
    });
    expect(withdraw.statusCode).toBe(403);
    expect(withdraw.json().errors[0].error_code).toBe(CommonErrors.FORBIDDEN_INSUFFICIENT_PERMISSIONS);
    const names = await call(asStaff(ada), "PUT", "/api/v2/users/account", {
      first_name: "Augusta",
      last_name: "King",
      allow_impersonation: true,
    });
    expect(names.statusCode).toBe(200);
    expect(names.json()).toMatchObject({ first_name: "Augusta", allow_impersonation: true });
    // The user withdraws consent; staff tokens stop working at once.
    const own = await call(ada, "PUT", "/api/v2/users/account", {
      first_name: "Augusta",
      last_name: "King",
      allow_impersonation: false,
    });
    expect(own.statusCode).toBe(200);
    const after = await call(asStaff(ada), "GET", "/api/v2/users/account");
    expect(after.statusCode).toBe(401);
    expect(after.json().errors[0].error_code).toBe(CommonErrors.UNAUTHORIZED_IMPERSONATION_NOT_ALLOWED);
  });

  it("asks for the current password when users change their own", async () => {
    const ada = await customer(false);
    const before = await passwordHash(ada.sub);
    const missing = await call(ada, "PUT", "/api/v2/users/password", {
      new_password: NEW_PASSWORD,
      confirm_new_password: NEW_PASSWORD,
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().errors[0]).toMatchObject({
      error_code: CommonErrors.VALIDATION_ERROR,
      args: { field: "current_password" },
    });
    const wrong = await call(ada, "PUT", "/api/v2/users/password", change("Not-The-Passw0rd!"));
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().errors[0]).toEqual({
      error_code: UserErrors.UPDATE_PASSWORD_WRONG_CURRENT_PASSWORD,
      args: { field: "current_password" },
    });
    expect(await passwordHash(ada.sub)).toBe(before);

    expect((await call(ada, "PUT", "/api/v2/users/password", change(PASSWORD))).statusCode).toBe(204);
    const stored = await passwordHash(ada.sub);
    expect(await verifyPassword(NEW_PASSWORD, stored!)).toBe(true);
    // The old password is not current any more.
    expect((await call(ada, "PUT", "/api/v2/users/password", change(PASSWORD, "Third-Passw0rd!"))).statusCode).toBe(
      400,
    );
  });

  it("limits wrong current passwords per account, as failed sign-ins are", async () => {
    const ada = await customer(false);
    for (let i = 0; i < 10; i++) {
      expect((await call(ada, "PUT", "/api/v2/users/password", change(`Guess-${i}-Passw0rd!`))).statusCode).toBe(400);
    }
    const limited = await call(ada, "PUT", "/api/v2/users/password", change(PASSWORD));
    expect(limited.statusCode).toBe(429);
    expect(limited.json().errors[0].error_code).toBe(CommonErrors.TOO_MANY_REQUESTS);
    expect(await verifyPassword(PASSWORD, (await passwordHash(ada.sub))!)).toBe(true);
    // Another account is not affected.
    const bob = await customer(false);
    expect((await call(bob, "PUT", "/api/v2/users/password", change(PASSWORD))).statusCode).toBe(204);
  });

  it("gives an account without a stored password nothing to prove, so no change", async () => {
    const external = userClaims();
    const res = await call(external, "PUT", "/api/v2/users/password", change("Anything-1!"));
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].error_code).toBe(UserErrors.UPDATE_PASSWORD_WRONG_CURRENT_PASSWORD);
    expect(await passwordHash(external.sub)).toBeNull();
  });
});
