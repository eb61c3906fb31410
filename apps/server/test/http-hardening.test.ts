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
