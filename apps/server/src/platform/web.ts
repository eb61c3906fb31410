import { existsSync } from "node:fs";
import { join } from "node:path";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance } from "fastify";
import { sendNotFound } from "./errors";

/** Paths that belong to the server, never to the SPA: unknown ones answer 404 in the envelope. */
const SERVER_PATHS = /^\/(api|auth)(\/|$)/;

/** Serves the built SPA (Vite's dist, public files included) and falls back to index.html for
 * other GET paths so the SPA's router renders them (its own 404 page included). */
export async function registerWebApp(app: FastifyInstance, webDistDir: string): Promise<void> {
  const hasWebApp = existsSync(join(webDistDir, "index.html"));
  if (hasWebApp) {
    await app.register(fastifyStatic, {
      root: webDistDir,
      index: ["index.html"],
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
    if (!hasWebApp || !wantsPage || SERVER_PATHS.test(path)) return sendNotFound(reply);
    return reply.header("cache-control", "no-cache").sendFile("index.html");
  });
}
