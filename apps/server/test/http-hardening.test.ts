import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CommonErrors } from "@polyforge/contracts/errors";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./support/app";
import { databaseKinds } from "./support/database";
import { caller, linearBlock } from "./support/polymer-builder";
import { userClaims } from "./support/tokens";

/** Issue 23 findings 7 and 12: security headers on every answer, no caching of private data, and
 * a body-less request with a JSON content type is valid. */
describe.each(databaseKinds())("HTTP hardening on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    const web = mkdtempSync(join(tmpdir(), "polyforge-web-"));
    writeFileSync(join(web, "index.html"), "<!doctype html><title>PolyForge</title>");
    writeFileSync(
      join(web, "silent-check-sso.html"),
      "<script>parent.postMessage(location.href, location.origin);</script>",
    );
    t = await startTestApp(kind, { WEB_DIST_DIR: web });
  });
  afterAll(() => t?.close());

  it("answers PATCH …/draft with a JSON content type and no body", async () => {
    const token = await t.issuer.sign(userClaims());
    const user = caller(t, token);
    await user.call("POST", "/systems/draft");
    const block = await linearBlock(user);
    for (const payload of [undefined, "", "  "]) {
      const response = await t.app.inject({
        method: "PATCH",
        url: `/api/v2/building_blocks/${block}/draft?draft_status=true`,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        ...(payload === undefined ? {} : { payload }),
      });
      expect(response.statusCode, response.body).toBe(200);
    }
    // Malformed JSON is still malformed.
    const malformed = await t.app.inject({
      method: "PUT",
      url: "/api/v2/feedback",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      payload: "{",
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().errors[0]).toMatchObject({
      error_code: CommonErrors.VALIDATION_ERROR,
      args: { field: "body" },
    });
  });

  it("sends a content security policy, framing and sniffing protection on the app and the API", async () => {
    for (const url of ["/", "/systems", "/api/health"]) {
      const response = await t.app.inject({ method: "GET", url });
      const csp = String(response.headers["content-security-policy"]);
      expect(csp, url).toContain("frame-ancestors 'self'");
      expect(csp).toContain("script-src 'self' 'unsafe-eval' 'wasm-unsafe-eval' 'sha256-");
      expect(csp).toContain("worker-src 'self' blob:");
      expect(/script-src [^;]*/.exec(csp)?.[0]).not.toContain("'unsafe-inline'");
      expect(response.headers["x-frame-options"]).toBe("SAMEORIGIN");
      expect(response.headers["x-content-type-options"]).toBe("nosniff");
      expect(response.headers["referrer-policy"]).toBe("no-referrer");
    }
  });

  it("sends a page opened at another loopback name of PUBLIC_URL's port to PUBLIC_URL first", async () => {
    expect(t.config.publicUrl).toBe("http://localhost:8080");
    for (const host of ["127.0.0.1:8080", "[::1]:8080"]) {
      const response = await t.app.inject({ method: "GET", url: "/systems?tab=2", headers: { host } });
      expect(response.statusCode, host).toBe(302);
      expect(response.headers.location).toBe("http://localhost:8080/systems?tab=2");
    }
    // The public name itself, another port, and API calls are answered where they arrive.
    expect((await t.app.inject({ method: "GET", url: "/", headers: { host: "localhost:8080" } })).statusCode).toBe(200);
    expect((await t.app.inject({ method: "GET", url: "/", headers: { host: "127.0.0.1:9999" } })).statusCode).toBe(200);
    const api = await t.app.inject({ method: "GET", url: "/api/health", headers: { host: "127.0.0.1:8080" } });
    expect(api.statusCode).toBe(200);
  });

  it("answers TRACE and QUERY with 405, naming the methods it answers", async () => {
    for (const method of ["TRACE", "QUERY"]) {
      const response = await t.app.inject({ method: method as "GET", url: "/api/v2/building_blocks" });
      expect(response.statusCode, method).toBe(405);
      // The path's own methods on the API, the server's elsewhere.
      expect(response.headers.allow).toBe("GET, HEAD, POST");
      const page = await t.app.inject({ method: method as "GET", url: "/systems" });
      expect(page.statusCode, method).toBe(405);
      expect(page.headers.allow).toContain("PATCH");
    }
  });

  it("documents every API route as it answers (issue 23 finding 10)", async () => {
    const doc = (await t.app.inject({ method: "GET", url: "/api/docs/openapi.json" })).json();
    const operations = Object.entries(doc.paths as Record<string, Record<string, Record<string, unknown>>>).flatMap(
      ([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
    );
    expect(operations.length).toBeGreaterThan(30);
    // The provider's pages and mounts are not part of the API.
    expect(operations.filter(({ path }) => !path.startsWith("/api/"))).toEqual([]);
    for (const { path, method, operation } of operations) {
      const responses = operation.responses as Record<string, { content?: unknown }>;
      const open = Array.isArray(operation.security) && operation.security.length === 0;
      for (const status of ["400", "404", "409", ...(open ? [] : ["401"])]) {
        expect(responses[status], `${method} ${path} ${status}`).toBeDefined();
      }
      if (responses["204"]) expect(responses["204"].content, `${method} ${path} 204`).toBeUndefined();
      const parameters = (operation.parameters ?? []) as Array<{
        in: string;
        name: string;
        schema: { format?: string };
      }>;
      for (const parameter of parameters.filter((p) => p.in === "path" && /(^id$|Id$)/.test(p.name))) {
        expect(parameter.schema.format, `${method} ${path} ${parameter.name}`).toBe("uuid");
      }
    }
    expect(doc.paths["/api/health"].get.security).toEqual([]);
  });

  it("limits each user's API writes and processing starts per minute (issue 23)", async () => {
    const limited = await startTestApp(kind, {
      POLYFORGE_WRITES_PER_MINUTE: "5",
      POLYFORGE_JOB_STARTS_PER_MINUTE: "2",
    });
    try {
      const token = await limited.issuer.sign(userClaims());
      const write = () =>
        limited.app.inject({
          method: "PUT",
          url: "/api/v2/feedback",
          headers: { authorization: `Bearer ${token}` },
          payload: { description: "More please" },
        });
      for (let i = 0; i < 5; i++) expect((await write()).statusCode).toBe(201);
      const refused = await write();
      expect(refused.statusCode).toBe(429);
      expect(refused.json().errors[0].error_code).toBe(CommonErrors.TOO_MANY_REQUESTS);
      expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
      // Reads are not limited; another user writes.
      const read = await limited.app.inject({
        method: "GET",
        url: "/api/v2/building_blocks",
        headers: { authorization: `Bearer ${token}` },
      });
      expect(read.statusCode).toBe(200);
      const other = await limited.app.inject({
        method: "PUT",
        url: "/api/v2/feedback",
        headers: { authorization: `Bearer ${await limited.issuer.sign(userClaims())}` },
        payload: { description: "Me too" },
      });
      expect(other.statusCode).toBe(201);
      // Processing starts have their own, smaller count (an unknown system answers 404 until then).
      const start = (bearer: string) =>
        limited.app.inject({
          method: "POST",
          url: "/api/v2/systems/00000000-0000-4000-8000-000000000000/process/start",
          headers: { authorization: `Bearer ${bearer}` },
        });
      const starter = await limited.issuer.sign(userClaims());
      expect((await start(starter)).statusCode).toBe(404);
      expect((await start(starter)).statusCode).toBe(404);
      expect((await start(starter)).statusCode).toBe(429);
    } finally {
      await limited.close();
    }
  });

  it("marks authenticated answers no-store, and leaves the app's own caching alone", async () => {
    const token = await t.issuer.sign(userClaims());
    const list = await t.app.inject({
      method: "GET",
      url: "/api/v2/building_blocks",
      headers: { authorization: `Bearer ${token}` },
    });
    expect(list.statusCode).toBe(200);
    expect(list.headers["cache-control"]).toBe("no-store");
    const page = await t.app.inject({ method: "GET", url: "/" });
    expect(page.headers["cache-control"]).toBe("no-cache");
  });
});
