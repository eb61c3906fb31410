import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JSON_DEPTH_MESSAGE, MAX_JSON_DEPTH } from "@polyforge/contracts/bounds";
import { CommonErrors } from "@polyforge/contracts/errors";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, buildApp } from "../src/app";
import { loadConfig } from "../src/platform/config";
import { useTestApp } from "./support/app";
import { createTestDatabase, databaseKinds, type TestDatabase } from "./support/database";
import { userClaims } from "./support/tokens";

/** A body whose `extra` field nests `depth` arrays inside each other. */
const nested = (depth: number, fields = '"description":"More please"') =>
  `{${fields},"extra":${"[".repeat(depth)}${"]".repeat(depth)}}`;

/** Deeply nested JSON used to answer 500 (the NUL-character walk recursed until the stack ran out)
 * or hold the event loop for seconds; it is refused before it is parsed. */
describe.each(databaseKinds())("deeply nested JSON on %s", (kind) => {
  const t = useTestApp(kind);
  let token: string;
  beforeAll(async () => {
    token = await t.issuer.sign(userClaims());
  });

  const send = (method: string, url: string, payload: string) =>
    t.app.inject({
      method: method as "PUT",
      url,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      payload,
    });

  it("answers 400 naming the bound for 10,000 and 400,000 levels, and the server goes on", async () => {
    for (const depth of [MAX_JSON_DEPTH + 1, 10_000, 400_000]) {
      const response = await send("PUT", "/api/v2/feedback", nested(depth));
      expect(response.statusCode, `${depth} levels`).toBe(400);
      expect(response.json().errors[0]).toEqual({
        error_code: CommonErrors.VALIDATION_ERROR,
        args: { field: "body", message: JSON_DEPTH_MESSAGE },
      });
    }
    // Brackets inside strings are text, and a body at the bound is accepted.
    const inText = await send("PUT", "/api/v2/feedback", `{"description":"${"[".repeat(10_000)}"}`);
    expect(inText.statusCode).toBe(201);
    const atBound = await send("PUT", "/api/v2/feedback", nested(MAX_JSON_DEPTH - 1));
    expect(atBound.statusCode).toBe(201);
  });

  it("refuses it on every API operation that takes a body", async () => {
    const doc = (await t.app.inject({ method: "GET", url: "/api/docs/openapi.json" })).json();
    const withBody = Object.entries(doc.paths as Record<string, Record<string, { requestBody?: unknown }>>).flatMap(
      ([path, operations]) =>
        Object.entries(operations)
          .filter(([, operation]) => operation.requestBody)
          .map(([method]) => ({ method: method.toUpperCase(), path })),
    );
    expect(withBody.length).toBeGreaterThan(20);
    const id = "00000000-0000-4000-8000-000000000000";
    for (const { method, path } of withBody) {
      const url = path.replace(/\{[^}]+\}/g, id);
      const response = await send(method, url, nested(100_000, '"name":"x"'));
      // A refused request on an id the caller cannot see answers that id's 404, as a valid one would.
      if (path.includes("{") && response.statusCode === 404) continue;
      expect(response.statusCode, `${method} ${path}`).toBe(400);
      expect(response.json().errors[0].args.message, `${method} ${path}`).toBe(JSON_DEPTH_MESSAGE);
    }
  });
});

/** The embedded identity provider's routes (/auth) read their own bodies: nesting never answers 500. */
describe.each(databaseKinds())("deeply nested JSON on the identity routes on %s", (kind) => {
  let app: App;
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    const config = loadConfig({
      LOG_LEVEL: "silent",
      POLYFORGE_DATA_DIR: mkdtempSync(join(tmpdir(), "polyforge-nesting-")),
      WEB_DIST_DIR: join(tmpdir(), "polyforge-nesting-no-web"),
      POLYFORGE_DEMO_PASSWORD: "Demo-Passw0rd!",
    });
    app = await buildApp({ config, database: database.target, runJobs: false });
  });
  afterAll(async () => {
    await app?.close();
    await database?.drop();
  });

  it("answers a client error on the token, userinfo, logout and sign-in routes", async () => {
    const realm = "/auth/realms/polyforge";
    const urls = [
      `${realm}/protocol/openid-connect/token`,
      `${realm}/protocol/openid-connect/userinfo`,
      `${realm}/protocol/openid-connect/logout`,
      `${realm}/interaction/abc/login`,
      `${realm}/interaction/abc/signup`,
    ];
    for (const url of urls) {
      for (const depth of [10_000, 400_000]) {
        const response = await app.inject({
          method: "POST",
          url,
          headers: { "content-type": "application/json" },
          payload: nested(depth),
        });
        expect(response.statusCode, `${url} ${depth}`).toBeGreaterThanOrEqual(400);
        expect(response.statusCode, `${url} ${depth}`).toBeLessThan(500);
      }
    }
    expect((await app.inject({ method: "GET", url: "/api/health" })).statusCode).toBe(200);
  });
});
