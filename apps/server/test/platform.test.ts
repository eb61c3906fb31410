import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CommonErrors } from "@polyforge/contracts/errors";
import { FLAGS } from "@polyforge/contracts/flags";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./support/app";
import { databaseKinds } from "./support/database";

describe.each(databaseKinds())("platform routes on %s", (kind) => {
  let t: TestApp;
  let webDist: string;
  beforeAll(async () => {
    // A stand-in for Vite's build output: the SPA's index.html, a fingerprinted asset, a public file.
    webDist = mkdtempSync(join(tmpdir(), "polyforge-web-"));
    mkdirSync(join(webDist, "assets"));
    writeFileSync(join(webDist, "index.html"), "<!doctype html><title>PolyForge</title><div id=root></div>");
    writeFileSync(join(webDist, "assets", "index-abc123.js"), "console.log('app')");
    writeFileSync(join(webDist, "silent-check-sso.html"), "<html><body>silent</body></html>");
    t = await startTestApp(kind, { WEB_DIST_DIR: webDist, DOCS_URL: "https://docs.example/polyforge" });
  });
  afterAll(() => t?.close());

  it("reports health without sign-in: database reachable, engine found with its version", async () => {
    const res = await t.app.inject({ method: "GET", url: "/api/health" });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.database).toEqual({ reachable: true, kind });
    expect(body.engine.found).toBe(true);
    expect(body.engine.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(body.status).toBe("ok");
  });

  it("serves the GrowthBook features with all four flags on, and 404 for an unknown client key", async () => {
    const res = await t.app.inject({ method: "GET", url: `/api/features/${t.config.flags.clientKey}` });
    expect(res.statusCode).toBe(200);
    const { features } = res.json();
    for (const flag of Object.values(FLAGS)) expect(features[flag]).toEqual({ defaultValue: true });

    const unknown = await t.app.inject({ method: "GET", url: "/api/features/someone-else" });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().errors[0].error_code).toBe(CommonErrors.NOT_FOUND);
  });

  it("serves /config.json for the SPA", async () => {
    const res = await t.app.inject({ method: "GET", url: "/config.json" });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      oidcProvider: t.issuer.issuer,
      clientId: "polyforge-web",
      flags: t.config.flags,
      docsUrl: "https://docs.example/polyforge",
      jobLimits: t.config.jobLimits,
    });
  });

  it("answers an unknown /api path with 404 in the error envelope", async () => {
    for (const url of ["/api/nothing-here", "/api/v2/unknown/resource", "/auth/unknown"]) {
      const res = await t.app.inject({ method: "GET", url });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ errors: [{ error_code: CommonErrors.NOT_FOUND, args: { path: url } }] });
    }
  });

  it("publishes the OpenAPI document and its UI", async () => {
    const doc = await t.app.inject({ method: "GET", url: "/api/docs/openapi.json" });
    expect(doc.statusCode).toBe(200);
    const paths = Object.keys(doc.json().paths);
    expect(paths).toEqual(expect.arrayContaining(["/api/health", "/api/v2/feedback", "/api/v2/users/account"]));
    // Sign-in is required everywhere except on the public platform routes.
    expect(doc.json().security).toEqual([{ bearer: [] }]);
    expect(doc.json().paths["/api/health"].get.security).toEqual([]);
    const ui = await t.app.inject({ method: "GET", url: "/api/docs" });
    expect(ui.statusCode).toBe(200);
    expect(ui.headers["content-type"]).toContain("text/html");
  });

  it("serves the SPA: files as they are, other pages through index.html", async () => {
    const asset = await t.app.inject({ method: "GET", url: "/assets/index-abc123.js" });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers["cache-control"]).toContain("immutable");

    const silent = await t.app.inject({ method: "GET", url: "/silent-check-sso.html" });
    expect(silent.body).toContain("silent");

    for (const url of ["/", "/building-blocks/create/linear", "/some/unknown/path?x=1"]) {
      const page = await t.app.inject({ method: "GET", url });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain("<div id=root>");
      expect(page.headers["cache-control"]).toBe("no-cache");
    }
  });
});
