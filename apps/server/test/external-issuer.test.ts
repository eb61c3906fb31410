import { once } from "node:events";
import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CommonErrors } from "@polyforge/contracts/errors";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, buildApp } from "../src/app";
import { loadConfig } from "../src/platform/config";
import { createTestDatabase, databaseKinds, type TestDatabase } from "./support/database";
import { TestIssuer, userClaims } from "./support/tokens";

// An external OpenID provider laid out like a Keycloak realm: discovery document and JWKS over HTTP.
describe.each(databaseKinds())("an external OpenID provider (OIDC_ISSUER) on %s", (kind) => {
  let provider: Server;
  let issuer: TestIssuer;
  let database: TestDatabase;
  let app: App;
  let jwksRequests = 0;

  beforeAll(async () => {
    provider = createServer((request, response) => {
      const base = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/realms/polyforge`;
      response.setHeader("content-type", "application/json");
      if (request.url === "/realms/polyforge/.well-known/openid-configuration") {
        response.end(JSON.stringify({ issuer: base, jwks_uri: `${base}/protocol/openid-connect/certs` }));
      } else if (request.url === "/realms/polyforge/protocol/openid-connect/certs") {
        jwksRequests++;
        response.end(JSON.stringify(issuer.keys().publicJwks));
      } else {
        response.statusCode = 404;
        response.end("{}");
      }
    }).listen(0, "127.0.0.1");
    await once(provider, "listening");
    const issuerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/realms/polyforge`;
    issuer = await TestIssuer.create(issuerUrl);
    database = await createTestDatabase(kind);
    const config = loadConfig({
      LOG_LEVEL: "silent",
      POLYFORGE_DATA_DIR: mkdtempSync(join(tmpdir(), "polyforge-test-")),
      WEB_DIST_DIR: join(tmpdir(), "polyforge-test-no-web"),
      OIDC_ISSUER: issuerUrl,
      OIDC_AUDIENCE: "polyforge-api",
    });
    app = await buildApp({ config, database: database.target });
  });
  afterAll(async () => {
    await app?.close();
    await database?.drop();
    provider?.close();
  });

  const account = async (token: string) =>
    app.inject({ method: "GET", url: "/api/v2/users/account", headers: { authorization: `Bearer ${token}` } });

  it("tells the SPA the Keycloak url, realm and client", async () => {
    const res = await app.inject({ method: "GET", url: "/config.json" });
    expect(res.json()).toMatchObject({
      url: `http://127.0.0.1:${(provider.address() as AddressInfo).port}`,
      realm: "polyforge",
      clientId: "polyforge-web",
    });
  });

  it("mounts no embedded provider", async () => {
    const res = await app.inject({ method: "GET", url: "/auth/realms/polyforge/.well-known/openid-configuration" });
    expect(res.statusCode).toBe(404);
  });

  it("accepts the provider's tokens for the configured audience, found through discovery", async () => {
    const res = await account(await issuer.sign({ ...userClaims(), aud: "polyforge-api" }));
    expect(res.statusCode).toBe(200);
    expect(jwksRequests).toBeGreaterThan(0);
  });

  it("refuses its tokens for another audience", async () => {
    const res = await account(await issuer.sign({ ...userClaims(), aud: "another-app" }));
    expect(res.statusCode).toBe(401);
    expect(res.json().errors[0].error_code).toBe(CommonErrors.UNAUTHORIZED_INVALID_TOKEN);
  });
});
