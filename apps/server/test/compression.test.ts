import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./support/app";

/** Replies are compressed when the client accepts it (issue 27): the web app's files and API JSON. */
describe("compressed replies", () => {
  let t: TestApp;
  const script = `export const rows = [${Array.from({ length: 400 }, (_, i) => `"row ${i}"`).join(", ")}];\n`;
  beforeAll(async () => {
    const web = mkdtempSync(join(tmpdir(), "polyforge-web-"));
    writeFileSync(join(web, "index.html"), `<!doctype html><title>PolyForge</title>${"<p>PolyForge</p>".repeat(100)}`);
    mkdirSync(join(web, "assets"));
    writeFileSync(join(web, "assets", "index-abc123.js"), script);
    // As the web build writes them beside each file (vite.config.ts): marked so the test sees which
    // was sent.
    writeFileSync(join(web, "assets", "chunk-def456.js"), script);
    writeFileSync(join(web, "assets", "chunk-def456.js.br"), brotliCompressSync(`${script}// precompressed br\n`));
    writeFileSync(join(web, "assets", "chunk-def456.js.gz"), gzipSync(`${script}// precompressed gz\n`));
    t = await startTestApp("pglite", { WEB_DIST_DIR: web });
  });
  afterAll(async () => {
    await t?.close();
  });

  it("sends the web app's assets in brotli or gzip as asked, and plain when not asked", async () => {
    const br = await t.app.inject({ url: "/assets/index-abc123.js", headers: { "accept-encoding": "br, gzip" } });
    expect([br.statusCode, br.headers["content-encoding"]]).toEqual([200, "br"]);
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(script);
    expect(br.rawPayload.length).toBeLessThan(script.length / 3);
    expect(br.headers["cache-control"]).toBe("public, max-age=31536000, immutable");

    const gzip = await t.app.inject({ url: "/assets/index-abc123.js", headers: { "accept-encoding": "gzip" } });
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gzip.rawPayload).toString()).toBe(script);

    const plain = await t.app.inject({ url: "/assets/index-abc123.js", headers: { "accept-encoding": "identity" } });
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body).toBe(script);

    const page = await t.app.inject({ url: "/projects", headers: { "accept-encoding": "gzip" } });
    expect([page.statusCode, page.headers["content-encoding"]]).toEqual([200, "gzip"]);
    expect(gunzipSync(page.rawPayload).toString()).toContain("<title>PolyForge</title>");
  });

  it("sends the build's precompressed copies as they are", async () => {
    const br = await t.app.inject({ url: "/assets/chunk-def456.js", headers: { "accept-encoding": "br, gzip" } });
    expect([br.statusCode, br.headers["content-encoding"]]).toEqual([200, "br"]);
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(`${script}// precompressed br\n`);
    expect(br.headers["content-type"]).toContain("javascript");
    const gzip = await t.app.inject({ url: "/assets/chunk-def456.js", headers: { "accept-encoding": "gzip" } });
    expect(gunzipSync(gzip.rawPayload).toString()).toBe(`${script}// precompressed gz\n`);
    const plain = await t.app.inject({ url: "/assets/chunk-def456.js" });
    expect([plain.headers["content-encoding"], plain.body]).toEqual([undefined, script]);
  });

  it("sends API JSON compressed", async () => {
    const response = await t.app.inject({ url: "/api/docs/openapi.json", headers: { "accept-encoding": "gzip" } });
    expect([response.statusCode, response.headers["content-encoding"]]).toEqual([200, "gzip"]);
    expect(response.headers["content-type"]).toContain("application/json");
    const document = JSON.parse(gunzipSync(response.rawPayload).toString());
    expect(document.info.title).toBe("PolyForge API");
  });
});
