import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fastifyHelmet from "@fastify/helmet";
import fastifyRateLimit, { type FastifyRateLimitStore } from "@fastify/rate-limit";
import { JSON_DEPTH_MESSAGE, jsonNestsDeeperThan, NO_NUL } from "@polyforge/contracts/bounds";
import { CommonErrors } from "@polyforge/contracts/errors";
import type { FastifyInstance, RouteOptions } from "fastify";
import { jsonSchemaTransform } from "fastify-type-provider-zod";
import { z } from "zod";
import { installClientLimits } from "./client-limits";
import type { Config } from "./config";
import type { Db } from "./db/database";
import { errorBody, validationError } from "./errors";
import { RequestCounter } from "./identity/rate-limit";

/** HTTP behaviour every route shares (issue 23): JSON bodies, security headers, caching, slow and
 * greedy clients cut off. */
export async function installHttpHardening(app: FastifyInstance, config: Config): Promise<void> {
  installClientLimits(app, config);
  acceptEmptyJsonBodies(app);
  redirectLoopbackAliases(app, config);
  refuseMethodsNotServed(app);
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
    // Authenticated answers (API data, files) are private, and a refused sign-in is about this
    // caller alone: no browser or proxy keeps a copy.
    const privateAnswer = request.headers.authorization !== undefined || reply.statusCode === 401;
    if (privateAnswer && !reply.hasHeader("cache-control")) reply.header("cache-control", "no-store");
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

/**
 * 405 with Allow, not 404, for a method a path is not served with: any method but the known ones
 * anywhere, and on an API path that exists any method its routes do not take (PUT on a list, POST
 * on /users/account). A path is the most specific route it matches, as the router reads it: PATCH
 * /building_blocks/draft is not a PATCH of a block whose id is "draft" (ids are UUIDs).
 */
function refuseMethodsNotServed(app: FastifyInstance): void {
  const apiRoutes: ApiRoute[] = [];
  app.addHook("onRoute", (route) => {
    if (route.url?.startsWith("/api/")) addApiRoute(apiRoutes, route.url, [route.method].flat());
  });
  app.addHook("onRequest", async (request, reply) => {
    const path = request.url.split("?")[0]!.replace(/(.)\/+$/, "$1");
    const served = path.startsWith("/api/") ? methodsServed(apiRoutes, path) : undefined;
    const refused = served ? !served.has(request.method) : !KNOWN_METHODS.has(request.method);
    if (!refused) return;
    return reply
      .code(405)
      .header("allow", [...(served ?? KNOWN_METHODS)].join(", "))
      .send(errorBody(CommonErrors.VALIDATION_ERROR, { message: `Method ${request.method} is not allowed` }));
  });
}

/** An API route's path as a pattern, its rank (per segment: 2 static, 1 parameter, 0 wildcard; the
 * router prefers the higher) and the methods it takes (HEAD with GET). */
type ApiRoute = { path: RegExp; rank: string; methods: Set<string> };

function addApiRoute(routes: ApiRoute[], url: string, methods: string[]): void {
  const segments = url.replace(/(.)\/+$/, "$1").split("/");
  const pattern = segments
    .map((segment) =>
      segment.startsWith(":") ? "[^/]+" : segment === "*" ? ".*" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
    )
    .join("/");
  let route = routes.find((known) => known.path.source === `^${pattern}$`);
  if (!route) {
    const rank = segments.map((segment) => (segment.startsWith(":") ? "1" : segment === "*" ? "0" : "2")).join("");
    route = { path: new RegExp(`^${pattern}$`), rank, methods: new Set() };
    routes.push(route);
  }
  for (const method of methods) route.methods.add(method);
  if (route.methods.has("GET")) route.methods.add("HEAD");
}

/** The methods of the most specific routes a path matches, or undefined when it matches none. */
function methodsServed(routes: ApiRoute[], path: string): Set<string> | undefined {
  const matching = routes.filter((route) => route.path.test(path));
  if (matching.length === 0) return undefined;
  const best = matching
    .map((route) => route.rank)
    .sort()
    .at(-1);
  return new Set(matching.filter((route) => route.rank === best).flatMap((route) => [...route.methods]));
}

/** The error envelope (ARCHITECTURE §3) as the OpenAPI document shows it. */
export const apiErrorSchema = z.object({
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

const NUL_FREE = NO_NUL.source;
/** Fastify's router refuses a path parameter longer than this (`maxParamLength`) with 414. */
const MAX_PATH_PARAMETER_LENGTH = 100;

/**
 * The OpenAPI document's request schemas (body, query, path), as zod's converter writes them, plus
 * what the server refuses before any schema: a NUL character in any string of a request
 * (`installErrorHandling`), and a path parameter longer than the router takes. Fields an object
 * does not name are not part of the API: the server drops them (and refuses one holding a NUL), so
 * the document says objects have no others.
 */
export function documentRequestSchemas(input: Parameters<typeof jsonSchemaTransform>[0]) {
  const documented = jsonSchemaTransform(input);
  const schema = documented.schema as Record<string, unknown>;
  for (const part of ["body", "querystring", "params", "headers"]) documentRequestPart(schema[part]);
  const params = schema.params as { properties?: Record<string, { maxLength?: number }> } | undefined;
  for (const parameter of Object.values(params?.properties ?? {})) {
    parameter.maxLength = Math.min(parameter.maxLength ?? MAX_PATH_PARAMETER_LENGTH, MAX_PATH_PARAMETER_LENGTH);
  }
  return documented;
}

function documentRequestPart(node: unknown): void {
  if (!node || typeof node !== "object") return;
  for (const child of Object.values(node)) documentRequestPart(child);
  if (Array.isArray(node)) return;
  const schema = node as Record<string, unknown>;
  if (schema.type === "string" && schema.pattern !== NUL_FREE) {
    if (schema.pattern === undefined) schema.pattern = NUL_FREE;
    else schema.allOf = [...((schema.allOf as unknown[]) ?? []), { pattern: NUL_FREE }];
  }
  if (schema.type === "object" && schema.properties !== undefined) schema.additionalProperties ??= false;
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
const RATE_WINDOW_MS = 60_000;
const JOB_START = /\/process\/start(\?|$)/;

/**
 * Per-user limits of the API's own (issue 23): writes per minute, and processing starts per minute
 * among them. Registered inside the signed-in scope, after authentication, so the caller is known;
 * reads are not limited. Past a limit: 429 TOO_MANY_REQUESTS with Retry-After. Counted in the
 * database (per minute of the clock), so that every API instance counts against the same limit.
 */
export async function installApiRateLimits(api: FastifyInstance, config: Config, db: Db): Promise<void> {
  const { writesPerMinute, jobStartsPerMinute } = config.apiRateLimits;
  const counter = new RequestCounter(db);
  class DatabaseStore implements FastifyRateLimitStore {
    incr(key: string, done: (error: Error | null, result?: { current: number; ttl: number }) => void): void {
      counter.increment(key, RATE_WINDOW_MS).then(
        (result) => done(null, result),
        (error: Error) => done(error),
      );
    }
    child(): FastifyRateLimitStore {
      return this;
    }
  }
  await api.register(fastifyRateLimit, {
    hook: "preHandler",
    store: DatabaseStore,
    timeWindow: RATE_WINDOW_MS,
    allowList: (request) => READS.has(request.method),
    keyGenerator: (request) =>
      `${request.user?.id ?? request.ip}:${JOB_START.test(request.url) ? "job-start" : "write"}`,
    max: (_request, key) => (key.endsWith(":job-start") ? jobStartsPerMinute : writesPerMinute),
  });
}
