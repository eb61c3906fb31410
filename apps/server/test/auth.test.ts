import { randomUUID } from "node:crypto";
import { CommonErrors } from "@polyforge/contracts/errors";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { onUserProvisioned } from "../src/modules/users/provisioning";
import { users } from "../src/platform/identity/schema";
import { useTestApp } from "./support/app";
import { databaseKinds } from "./support/database";
import { newSigningKey, userClaims } from "./support/tokens";

// Counts provisioning per user id, to show the hooks run exactly once per user; a user listed in
// `failOnce` has their first provisioning fail, as a broken sample-data hook would.
const provisioned = new Map<string, number>();
const failOnce = new Set<string>();
onUserProvisioned(async (_tx, user) => {
  provisioned.set(user.id, (provisioned.get(user.id) ?? 0) + 1);
  if (failOnce.delete(user.id)) throw new Error("sample data could not be written");
});

describe.each(databaseKinds())("authentication on %s", (kind) => {
  const t = useTestApp(kind);

  const account = (headers: Record<string, string> = {}) =>
    t.app.inject({ method: "GET", url: "/api/v2/users/account", headers });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const errorCode = (res: { json(): { errors: { error_code: string }[] } }) => res.json().errors[0]?.error_code;

  it("refuses a request without a token: 401 MISSING_TOKEN", async () => {
    const res = await account();
    expect(res.statusCode).toBe(401);
    expect(errorCode(res)).toBe(CommonErrors.UNAUTHORIZED_MISSING_TOKEN);
  });

  it("refuses a malformed token: 401 TOKEN_DECODE_ERROR", async () => {
    for (const headers of [bearer("not-a-jwt"), bearer("a.b.c"), { authorization: "Basic dXNlcjpwdw==" }]) {
      const res = await account(headers);
      expect(res.statusCode).toBe(401);
      expect(errorCode(res)).toBe(CommonErrors.UNAUTHORIZED_TOKEN_DECODE_ERROR);
    }
  });

  it("refuses an expired token: 401 INVALID_TOKEN", async () => {
    const token = await t.issuer.sign(userClaims(), { expiresIn: Math.floor(Date.now() / 1000) - 60 });
    const res = await account(bearer(token));
    expect(res.statusCode).toBe(401);
    expect(errorCode(res)).toBe(CommonErrors.UNAUTHORIZED_INVALID_TOKEN);
  });

  it("refuses a token of a foreign issuer: 401 INVALID_TOKEN", async () => {
    const token = await t.issuer.sign(userClaims(), { issuer: "https://evil.example/realms/polyforge" });
    const res = await account(bearer(token));
    expect(res.statusCode).toBe(401);
    expect(errorCode(res)).toBe(CommonErrors.UNAUTHORIZED_INVALID_TOKEN);
  });

  it("refuses a token signed with another key, even one claiming our key id: 401 INVALID_TOKEN", async () => {
    const otherKey = await newSigningKey();
    const impostor = { ...otherKey, kid: t.issuer.key.kid };
    for (const key of [otherKey, impostor]) {
      const res = await account(bearer(await t.issuer.sign(userClaims(), { key })));
      expect(res.statusCode).toBe(401);
      expect(errorCode(res)).toBe(CommonErrors.UNAUTHORIZED_INVALID_TOKEN);
    }
  });

  it("refuses a token without sub or email: 401 INVALID_PAYLOAD", async () => {
    const { email: _email, ...noEmail } = userClaims();
    const { sub: _sub, ...noSub } = userClaims();
    for (const claims of [noEmail, noSub, userClaims({ sub: "not-a-uuid" })]) {
      const res = await account(bearer(await t.issuer.sign(claims)));
      expect(res.statusCode).toBe(401);
      expect(errorCode(res)).toBe(CommonErrors.UNAUTHORIZED_INVALID_PAYLOAD);
    }
  });

  it("provisions a user on first sight, once, with the token's identity", async () => {
    const claims = userClaims({ organization: "cosmetics", identity_provider: "corporate-sso" });
    const token = await t.issuer.sign(claims);
    const before = await t.app.database.db.select().from(users).where(eq(users.id, claims.sub));
    expect(before).toHaveLength(0);

    const responses = await Promise.all([account(bearer(token)), account(bearer(token)), account(bearer(token))]);
    for (const res of responses) expect(res.statusCode).toBe(200);
    expect(responses[0]!.json()).toEqual({
      id: claims.sub,
      email: claims.email,
      first_name: "Ada",
      last_name: "Lovelace",
      organization: "cosmetics",
      allow_impersonation: false,
      identity_provider: "corporate-sso",
    });

    const rows = await t.app.database.db.select().from(users).where(eq(users.id, claims.sub));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.provisionedAt).toBeInstanceOf(Date);
    expect(provisioned.get(claims.sub)).toBe(1);
  });

  it("provisions a user whose row the identity provider already created, without duplicating it", async () => {
    const id = randomUUID();
    await t.app.database.db.insert(users).values({ id, email: `${id}@example.org`, firstName: "Grace" });
    const res = await account(bearer(await t.issuer.sign(userClaims({ sub: id, email: `${id}@example.org` }))));
    expect(res.statusCode).toBe(200);
    expect(res.json().first_name).toBe("Grace");
    expect(provisioned.get(id)).toBe(1);
  });

  it("rolls provisioning back when a hook fails (SAMPLE_DATA_ERROR) and completes it on the next request", async () => {
    const claims = userClaims();
    failOnce.add(claims.sub);
    const token = await t.issuer.sign(claims);
    const failed = await account(bearer(token));
    expect(failed.statusCode).toBe(500);
    expect(errorCode(failed)).toBe(CommonErrors.CREATE_USER_SAMPLE_DATA_ERROR);
    const [row] = await t.app.database.db.select().from(users).where(eq(users.id, claims.sub));
    expect(row?.provisionedAt).toBeNull();

    expect((await account(bearer(token))).statusCode).toBe(200);
    expect(provisioned.get(claims.sub)).toBe(2);
    expect((await account(bearer(token))).statusCode).toBe(200);
    expect(provisioned.get(claims.sub)).toBe(2);
  });

  it("refuses to provision a second user with an email that is already taken", async () => {
    const first = userClaims();
    expect((await account(bearer(await t.issuer.sign(first)))).statusCode).toBe(200);
    const res = await account(bearer(await t.issuer.sign(userClaims({ email: first.email }))));
    expect(res.statusCode).toBe(409);
    expect(errorCode(res)).toBe(CommonErrors.CREATE_USER_CREATION_ERROR);
  });

  it("normalizes an unknown organization to other", async () => {
    const res = await account(bearer(await t.issuer.sign(userClaims({ organization: "acme" }))));
    expect(res.json().organization).toBe("other");
  });

  it("refuses impersonation unless the impersonated user allows it", async () => {
    const claims = userClaims();
    const token = await t.issuer.sign(claims);
    expect((await account(bearer(token))).statusCode).toBe(200);

    const impersonation = await t.issuer.sign({ ...claims, impersonator: "support@polyforge.local" });
    const refused = await account(bearer(impersonation));
    expect(refused.statusCode).toBe(401);
    expect(errorCode(refused)).toBe(CommonErrors.UNAUTHORIZED_IMPERSONATION_NOT_ALLOWED);

    const allow = await t.app.inject({
      method: "PUT",
      url: "/api/v2/users/account",
      headers: bearer(token),
      payload: { first_name: "Ada", last_name: "Lovelace", allow_impersonation: true },
    });
    expect(allow.statusCode).toBe(200);
    expect((await account(bearer(impersonation))).statusCode).toBe(200);
  });
});
