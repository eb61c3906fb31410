import { existsSync } from "node:fs";
import { join } from "node:path";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance } from "fastify";
import { sendNotFound } from "./errors";

/** Paths that belong to the server, never to the SPA: unknown ones answer 404 in the envelope. */
const SERVER_PATHS = /^\/(api|auth)(\/|$)/;

/** Where the user guide is served (VitePress's `base`). */
export const DOCS_PREFIX = "/docs/";
const DOCS_PATHS = /^\/docs(\/|$)/;

/** Serves the built SPA (Vite's dist, public files included) and falls back to index.html for
 * other GET paths so the SPA's router renders them (its own 404 page included). */
export async function registerWebApp(app: FastifyInstance, webDistDir: string, docsDistDir?: string): Promise<void> {
  const hasWebApp = existsSync(join(webDistDir, "index.html"));
  const hasDocs = docsDistDir !== undefined && existsSync(join(docsDistDir, "index.html"));
  if (hasDocs) await registerUserGuide(app, docsDistDir, !hasWebApp);
  if (hasWebApp) {
    await app.register(fastifyStatic, {
      root: webDistDir,
      index: ["index.html"],
      // The build writes brotli and gzip copies beside each file (apps/web/vite.config.ts): sent as
      // they are to clients that accept them; anything else @fastify/compress compresses (app.ts).
      preCompressed: true,
      // Cache-Control is ours (below), not the plugin's default `max-age=0`.
      cacheControl: false,
      setHeaders: (res, path) => {
        // Vite fingerprints everything under assets/; anything else may change with the next build.
        const cacheControl = path.includes(`${join(webDistDir, "assets")}/`)
          ? "public, max-age=31536000, immutable"
          : "no-cache";
        res.setHeader("cache-control", cacheControl);
      },
    });
  }

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split("?")[0] ?? "/";
    const wantsPage = request.method === "GET" || request.method === "HEAD";
    if (DOCS_PATHS.test(path) && wantsPage) {
      // The guide's home (the static root answers its files, not the bare prefix), its own 404 page,
      // or a plain one when the guide was not built (`make docs`).
      if (path === "/docs") return reply.redirect(DOCS_PREFIX, 301);
      if (hasDocs && path === DOCS_PREFIX) {
        return reply.header("cache-control", "no-cache").sendFile("index.html", docsDistDir!);
      }
      if (hasDocs) return reply.code(404).header("cache-control", "no-cache").sendFile("404.html", docsDistDir!);
      return reply.code(404).type("text/plain").send("The user guide has not been built: run `make docs`.");
    }
    if (!hasWebApp || !wantsPage || SERVER_PATHS.test(path)) return sendNotFound(reply);
    return reply.header("cache-control", "no-cache").sendFile("index.html");
  });
}

/** The user guide (docs/guide, built by VitePress with base /docs/) under /docs/. VitePress names
 * its hashed files under assets/ like Vite does; pages may change with the next build. */
async function registerUserGuide(app: FastifyInstance, docsDistDir: string, decorateReply: boolean): Promise<void> {
  await app.register(fastifyStatic, {
    root: docsDistDir,
    prefix: DOCS_PREFIX,
    // Only one static root may add reply.sendFile; the SPA's does when there is one.
    decorateReply,
    index: ["index.html"],
    // `/docs/screens` (a page) and `/docs/screens.html` (its file) are the same page.
    extensions: ["html"],
    cacheControl: false,
    setHeaders: (res, path) => {
      const cacheControl = path.includes(`${join(docsDistDir, "assets")}/`)
        ? "public, max-age=31536000, immutable"
        : "no-cache";
      res.setHeader("cache-control", cacheControl);
    },
  });
}
