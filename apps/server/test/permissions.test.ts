import { CommonErrors } from "@polyforge/contracts/errors";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasAnyRole, requireOrganization, requireRole } from "../src/platform/auth/permissions";
import type { AuthenticatedUser } from "../src/platform/auth/user";
import { installErrorHandling } from "../src/platform/errors";

function user(overrides: Partial<AuthenticatedUser>): AuthenticatedUser {
  return {
    id: "8d7c6a4e-1f0b-4a7e-9a43-6a1f2b3c4d5e",
    email: "ada@example.org",
    firstName: "Ada",
    lastName: "Lovelace",
    organization: "other",
    roles: ["user"],
    allowImpersonation: false,
    impersonator: null,
    identityProvider: null,
    ...overrides,
  };
}

describe("hasAnyRole", () => {
  it("passes when any listed role is held", () => {
    expect(hasAnyRole(user({ roles: ["user", "support"] }), ["admin", "support"])).toBe(true);
    expect(hasAnyRole(user({ roles: ["user"] }), ["admin", "support"])).toBe(false);
    expect(hasAnyRole(user({ roles: [] }), ["user"])).toBe(false);
  });
});

// Routes guarded by the helpers; the caller is taken from a header so each test picks one.
const app = Fastify({ logger: false });
installErrorHandling(app);
app.decorateRequest("user", null);
app.addHook("onRequest", async (request) => {
  const caller = request.headers["x-test-user"];
  request.user = typeof caller === "string" ? (JSON.parse(caller) as AuthenticatedUser) : null;
});
app.get("/support-only", { preHandler: requireRole("support", "admin") }, async () => ({ ok: true }));
app.get("/cosmetics-only", { preHandler: requireOrganization("cosmetics") }, async () => ({ ok: true }));

beforeAll(() => app.ready());
afterAll(() => app.close());

const as = (caller: AuthenticatedUser | null, url: string) =>
  app.inject({ method: "GET", url, headers: caller ? { "x-test-user": JSON.stringify(caller) } : {} });

describe("requireRole", () => {
  it("lets a holder of any listed role through and refuses others with 403 INSUFFICIENT_PERMISSIONS", async () => {
    expect((await as(user({ roles: ["user", "support"] }), "/support-only")).statusCode).toBe(200);
    const refused = await as(user({ roles: ["user"] }), "/support-only");
    expect(refused.statusCode).toBe(403);
    expect(refused.json().errors[0].error_code).toBe(CommonErrors.FORBIDDEN_INSUFFICIENT_PERMISSIONS);
  });

  it("answers 401 without a caller", async () => {
    expect((await as(null, "/support-only")).statusCode).toBe(401);
  });
});

describe("requireOrganization", () => {
  it("passes the listed organizations and always the product's own, refuses others with POLICY_CHECK_FAILED", async () => {
    expect((await as(user({ organization: "cosmetics" }), "/cosmetics-only")).statusCode).toBe(200);
    expect((await as(user({ organization: "polyforge" }), "/cosmetics-only")).statusCode).toBe(200);
    const refused = await as(user({ organization: "other" }), "/cosmetics-only");
    expect(refused.statusCode).toBe(403);
    expect(refused.json().errors[0].error_code).toBe(CommonErrors.FORBIDDEN_POLICY_CHECK_FAILED);
  });
});
