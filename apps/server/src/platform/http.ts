import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fastifyHelmet from "@fastify/helmet";
import fastifyRateLimit from "@fastify/rate-limit";
import { JSON_DEPTH_MESSAGE, jsonNestsDeeperThan } from "@polyforge/contracts/bounds";
import { CommonErrors } from "@polyforge/contracts/errors";
import type { FastifyInstance, RouteOptions } from "fastify";
import { z } from "zod";
import type { Config } from "./config";
import { errorBody, validationError } from "./errors";

/** HTTP behaviour every route shares (issue 23): JSON bodies, security headers, caching. */
export async function installHttpHardening(app: FastifyInstance, config: Config): Promise<void> {
  acceptEmptyJsonBodies(app);
  redirectLoopbackAliases(app, config);
  refuseUnknownMethods(app);
  app.addHook("onRoute", documentRoute);
  await app.register(fastifyHelmet, {
    contentSecurityPolicy: { useDefaults: false, directives: contentSecurityDirectives(config) },
    // Framing only by the app itself (keycloak-js's silent sign-in check runs in an iframe of ours).
    frameguard: { action: "sameorigin" },
    referrerPolicy: { policy: "no-referrer" },
    // HSTS only makes sense (and is only honoured) when the app is served over HTTPS.
    strictTransportSecurity: config.publicUrl.startsWith("https:") ? { maxAge: 15_552_000 } : false,
    // The app loads nothing cross-origin that would send CORP headers (3Dmol, Ketcher are bundled).
    crossOriginEmbedderPolicy: false,
  });
  const docsPolicy = serializePolicy(userGuideDirectives(config));
  app.addHook("onSend", async (request, reply, payload) => {
    // Authenticated answers (API data, files) are private: no browser or proxy keeps a copy.
    if (request.headers.authorization && !reply.hasHeader("cache-control")) reply.header("cache-control", "no-store");
    // The user guide (VitePress) needs its inline scripts (its page map, the colour scheme).
    if (request.url.startsWith("/docs")) reply.header("content-security-policy", docsPolicy);
    return payload;
  });
}

/**
 * A body-less request with a JSON content type is valid (issue 23: PATCH …/draft?draft_status=true
 * answered 'Malformed JSON body' when a client library added the header): an empty body is no body.
 * Anything else goes through Fastify's own JSON parser (prototype poisoning guarded), unless it
 * nests deeper than any API body does: that is refused before parsing, in time linear in its size.
 */
function acceptEmptyJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") {
      done(null, undefined);
      return;
    }
    if (jsonNestsDeeperThan(text)) {
      done(validationError("body", JSON_DEPTH_MESSAGE), undefined);
      return;
    }
    parseJson(request, text, done);
  });
}

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Sign-in only works at PUBLIC_URL (the identity provider accepts redirects to the app's origin
 * only), so the app opened at another loopback name of the same port (http://127.0.0.1:8080 for
 * the default http://localhost:8080) is sent to PUBLIC_URL first (issue 23). Pages only: API calls
 * are answered wherever they arrive.
 */
function redirectLoopbackAliases(app: FastifyInstance, config: Config): void {
  const publicUrl = new URL(config.publicUrl);
  if (!LOOPBACK_NAMES.has(publicUrl.hostname)) return;
  const publicPort = publicUrl.port || (publicUrl.protocol === "https:" ? "443" : "80");
  app.addHook("onRequest", async (request, reply) => {
    if (request.method !== "GET" && request.method !== "HEAD") return;
    if (/^\/(api|auth)(\/|$)/.test(request.url)) return;
    const host = URL.parse(`http://${request.headers.host ?? ""}`);
    if (!host || host.host === publicUrl.host || !LOOPBACK_NAMES.has(host.hostname)) return;
    if ((host.port || "80") !== publicPort) return;
    return reply.redirect(`${config.publicUrl}${request.url}`, 302);
  });
}

/** The methods the API and the app answer; anything else (TRACE, QUERY, …) is 405, not 404. */
const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

function refuseUnknownMethods(app: FastifyInstance): void {
  app.addHook("onRequest", async (request, reply) => {
    if (KNOWN_METHODS.has(request.method)) return;
    return reply
      .code(405)
      .header("allow", [...KNOWN_METHODS].join(", "))
      .send(errorBody(CommonErrors.VALIDATION_ERROR, { message: `Method ${request.method} is not allowed` }));
  });
}

/** The error envelope (ARCHITECTURE §3) as the OpenAPI document shows it. */
const apiErrorSchema = z.object({
  errors: z.array(z.object({ error_code: z.string(), args: z.record(z.string(), z.unknown()).optional() })),
});

/** 204 has no body: zod's null would be documented as JSON (@fastify/swagger leaves the content
 * out only for `type: "null"`). */
const noContent = z.null().meta({ type: "null", description: "No content" } as Record<string, unknown>);

/**
 * Makes each route's OpenAPI entry say what the server does (issue 23), for every route whoever adds
 * it: an API route documents the error envelope for 400 (validation), 401 (sign-in, unless the route
 * needs none), 404 and 409 (a state conflict) unless it says otherwise, and 204 without a body; the
 * provider's pages and mounts under /auth, and routes without a schema, are not part of the API.
 */
function documentRoute(route: RouteOptions): void {
  const url = route.url ?? "";
  if (!url.startsWith("/api/") || !route.schema || url.startsWith("/api/docs")) {
    route.schema = { ...(route.schema ?? {}), hide: true };
    return;
  }
  const schema = route.schema as {
    response?: Record<string, unknown>;
    security?: unknown[];
    hide?: boolean;
    params?: unknown;
  };
  if (schema.hide) return;
  // Ids in paths are UUIDs: the services answer their own 400 code for anything else, so the
  // format is documented without changing the validation.
  if (schema.params instanceof z.ZodObject) {
    const ids = Object.entries(schema.params.shape).filter(
      ([name, value]) => /(^id$|Id$|_id$)/.test(name) && value instanceof z.ZodString && !value.format,
    );
    if (ids.length) {
      schema.params = schema.params.extend(
        Object.fromEntries(ids.map(([name]) => [name, z.string().meta({ format: "uuid" })])),
      );
    }
  }
  const response = { ...(schema.response ?? {}) };
  const errors = [400, 404, 409, 429];
  if (!(Array.isArray(schema.security) && schema.security.length === 0)) errors.push(401);
  for (const status of errors) response[status] ??= apiErrorSchema;
  // Node's HTTP parser answers these itself, without a body, before any route runs.
  response[414] ??= z.null().meta({ type: "null", description: "URI too long" } as Record<string, unknown>);
  response[431] ??= z
    .null()
    .meta({ type: "null", description: "Request headers too large" } as Record<string, unknown>);
  if (response[204] instanceof z.ZodNull && !("type" in (z.globalRegistry.get(response[204]) ?? {}))) {
    response[204] = noContent;
  }
  schema.response = response;
}

/** The origins the browser app talks to besides its own: the external identity provider, the
 * feature-flag server, an S3 endpoint that takes uploads directly. */
function externalOrigins(config: Config): string[] {
  const urls = [config.oidcIssuer, config.flags.apiHost, config.s3.endpoint];
  const own = new URL(config.publicUrl).origin;
  const origins = urls.flatMap((url) => (url && URL.canParse(url) ? [new URL(url).origin] : []));
  return [...new Set(origins)].filter((origin) => origin !== own);
}

/**
 * The content security policy of the app and API. Scripts come only from our origin (plus the one
 * inline script of silent-check-sso.html, by hash), never inline; WebAssembly (RDKit, Ketcher's
 * Indigo) may be compiled, and 'unsafe-eval' is there because RDKit's MinimalLib builds its
 * JavaScript bindings with `new Function` (Emscripten's embind; checked in Chromium: without it the
 * structure renderer fails to load). Ketcher starts its worker from a blob URL; styles may be
 * inline (the UI library and Ketcher inject them). Nothing may frame the app but the app itself.
 * The identity provider's pages send their own, stricter policy.
 */
export function contentSecurityDirectives(config: Config): Record<string, string[]> {
  const external = externalOrigins(config);
  const silentCheck = inlineScriptHashes(join(config.webDistDir, "silent-check-sso.html"));
  return {
    "default-src": ["'self'"],
    "script-src": ["'self'", "'unsafe-eval'", "'wasm-unsafe-eval'", ...silentCheck],
    "worker-src": ["'self'", "blob:"],
    "style-src": ["'self'", "'unsafe-inline'"],
    "img-src": ["'self'", "data:", "blob:"],
    "font-src": ["'self'", "data:"],
    "connect-src": ["'self'", ...external],
    "frame-src": ["'self'", ...external],
    "frame-ancestors": ["'self'"],
    "form-action": ["'self'", ...external],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
  };
}

/** The static user guide's policy: the app's, with inline scripts allowed (VitePress writes its
 * page map inline; the guide shows no user data). */
function userGuideDirectives(config: Config): Record<string, string[]> {
  const directives = contentSecurityDirectives(config);
  return { ...directives, "script-src": ["'self'", "'unsafe-inline'"] };
}

function serializePolicy(directives: Record<string, string[]>): string {
  return Object.entries(directives)
    .map(([name, sources]) => `${name} ${sources.join(" ")}`)
    .join("; ");
}

/** 'sha256-…' sources for the inline scripts of a built page (none when it is absent). */
function inlineScriptHashes(path: string): string[] {
  let html: string;
  try {
    html = readFileSync(path, "utf8");
  } catch {
    return [];
  }
  return [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map(
    (match) =>
      `'sha256-${createHash("sha256")
        .update(match[1] ?? "")
        .digest("base64")}'`,
  );
}

const READS = new Set(["GET", "HEAD", "OPTIONS"]);
const JOB_START = /\/process\/start(\?|$)/;

/**
 * Per-user limits of the API's own (issue 23): writes per minute, and processing starts per minute
 * among them. Registered inside the signed-in scope, after authentication, so the caller is known;
 * reads are not limited. Past a limit: 429 TOO_MANY_REQUESTS with Retry-After.
 */
export async function installApiRateLimits(api: FastifyInstance, config: Config): Promise<void> {
  const { writesPerMinute, jobStartsPerMinute } = config.apiRateLimits;
  await api.register(fastifyRateLimit, {
    hook: "preHandler",
    timeWindow: 60_000,
    allowList: (request) => READS.has(request.method),
    keyGenerator: (request) =>
      `${request.user?.id ?? request.ip}:${JOB_START.test(request.url) ? "job-start" : "write"}`,
    max: (_request, key) => (key.endsWith(":job-start") ? jobStartsPerMinute : writesPerMinute),
  });
}
