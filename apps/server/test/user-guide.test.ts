import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./support/app";

/** The user guide (VitePress output) served under /docs/ (platform/web.ts). */
describe("the user guide at /docs", () => {
  let t: TestApp;
  let bare: TestApp;
  beforeAll(async () => {
    const docs = mkdtempSync(join(tmpdir(), "polyforge-docs-"));
    writeFileSync(join(docs, "index.html"), "<h1>PolyForge user guide</h1>");
    writeFileSync(join(docs, "404.html"), "<h1>Page not found in the guide</h1>");
    mkdirSync(join(docs, "screens"));
    writeFileSync(join(docs, "screens", "projects.html"), "<h1>Projects</h1>");
    t = await startTestApp("pglite", { DOCS_DIST_DIR: docs });
    bare = await startTestApp("pglite", { DOCS_DIST_DIR: join(docs, "not-built") });
  });
  afterAll(async () => {
    await t?.close();
    await bare?.close();
  });

  it("serves the guide's home at /docs/ (and sends /docs there), its pages by clean URL", async () => {
    const redirect = await t.app.inject({ method: "GET", url: "/docs" });
    expect([redirect.statusCode, redirect.headers.location]).toEqual([301, "/docs/"]);
    const home = await t.app.inject({ method: "GET", url: "/docs/" });
    expect(home.statusCode).toBe(200);
    expect(home.body).toContain("PolyForge user guide");
    const page = await t.app.inject({ method: "GET", url: "/docs/screens/projects" });
    expect([page.statusCode, page.body]).toEqual([200, "<h1>Projects</h1>"]);
  });

  it("answers an unknown guide page with the guide's 404 page, not the web app", async () => {
    const missing = await t.app.inject({ method: "GET", url: "/docs/no-such-page" });
    expect(missing.statusCode).toBe(404);
    expect(missing.body).toContain("Page not found in the guide");
  });

  it("says how to build the guide when it was not built", async () => {
    const response = await bare.app.inject({ method: "GET", url: "/docs/" });
    expect(response.statusCode).toBe(404);
    expect(response.body).toContain("make docs");
  });
});
