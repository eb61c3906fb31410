import type { IncomingMessage } from "node:http";
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { JSONWebKeySet } from "jose";
import type Provider from "oidc-provider";
import type { Config } from "../config";
import type { Db } from "../db/database";
import { DEMO_EMAIL, ensureDemoAccount } from "./accounts";
import { sweepExpiredPayloads } from "./adapter";
import { registerInteractionRoutes } from "./interactions";
import { loadOrCreateKeys } from "./keys";
import { createProvider, ROUTES } from "./provider";
import { SignInLimiter } from "./rate-limit";
import { registerUserinfoRoute } from "./userinfo";

/** The realm path Keycloak would use, so the web app's configuration is the same for both. */
const REALM_PATH = "/auth/realms/polyforge";
const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

export interface EmbeddedIdentity {
  issuer: string;
  /** The keys access tokens are signed with; the API verifies tokens against them. */
  publicJwks: JSONWebKeySet;
  /** Mounts the provider, its sign-in pages and its userinfo endpoint under the issuer's path. */
  register(app: FastifyInstance): Promise<void>;
}

export interface EmbeddedIdentityOptions {
  db: Db;
  config: Pick<Config, "publicUrl" | "demoPassword"> &
    Partial<Pick<Config, "signUpsPerAddress" | "signInFailuresPerAddress" | "secretKey">>;
  logger: FastifyBaseLogger;
}

/** The built-in OpenID Connect provider (ARCHITECTURE §1, §4): used when no OIDC_ISSUER is set. */
export async function createEmbeddedIdentity({
  db,
  config,
  logger,
}: EmbeddedIdentityOptions): Promise<EmbeddedIdentity> {
  const publicUrl = new URL(config.publicUrl);
  const issuer = `${config.publicUrl}${REALM_PATH}`;
  const mountPath = new URL(issuer).pathname;
  const keys = await loadOrCreateKeys(db, config.secretKey);

  const demoPassword = await ensureDemoAccount(db, config.demoPassword);
  // The one moment this password is ever shown: say it plainly on stdout.
  if (demoPassword) process.stdout.write(`Demo account: ${DEMO_EMAIL} / ${demoPassword}\n`);

  const provider = createProvider({ issuer, appOrigin: publicUrl.origin, db, keys, logger });
  const limiter = new SignInLimiter(db, {
    signUpsPerAddress: config.signUpsPerAddress,
    failuresPerAddress: config.signInFailuresPerAddress,
  });
  const forwardToProvider = providerForwarder(provider.callback(), publicUrl, mountPath);
  const sweep = expiredRecordSweep(db, limiter, logger);

  return {
    issuer,
    publicJwks: keys.publicJwks,
    async register(app) {
      await app.register(async (scope) => mountProvider(scope, publicUrl.origin, mountPath, forwardToProvider));
      await app.register(async (scope) => {
        registerInteractionRoutes(scope, {
          provider,
          db,
          limiter,
          logger,
          mountPath,
          appUrl: `${config.publicUrl}/`,
          csrfSecret: keys.cookieKeys[0]!,
        });
        registerUserinfoRoute(scope, {
          path: `${mountPath}${ROUTES.userinfo}`,
          issuer,
          publicJwks: keys.publicJwks,
          db,
        });
      });

      await sweep();
      const timer = setInterval(() => void sweep(), SWEEP_INTERVAL_MS);
      timer.unref();
      app.addHook("onClose", async () => clearInterval(timer));
    },
  };
}

/** Hands the raw request to oidc-provider (a Koa app) as if it were mounted at `mountPath`, with
 * PUBLIC_URL's protocol and host, so the URLs it writes are the public ones. */
function providerForwarder(
  callback: ReturnType<Provider["callback"]>,
  publicUrl: URL,
  mountPath: string,
): (request: FastifyRequest, reply: FastifyReply) => void {
  return (request, reply) => {
    const raw = request.raw as IncomingMessage & { originalUrl?: string };
    raw.headers["x-forwarded-proto"] = publicUrl.protocol.slice(0, -1);
    raw.headers["x-forwarded-host"] = publicUrl.host;
    raw.originalUrl = raw.url;
    raw.url = raw.url?.slice(mountPath.length) || "/";
    reply.hijack();
    void callback(raw, reply.raw);
  };
}

/** Everything under `mountPath` goes to the provider, in a scope of its own. */
function mountProvider(
  scope: FastifyInstance,
  appOrigin: string,
  mountPath: string,
  forward: (request: FastifyRequest, reply: FastifyReply) => void,
): void {
  // oidc-provider reads its own request bodies: Fastify must leave the stream alone.
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser("*", (_request, _payload, done) => done(null));
  // oidc-provider answers every CORS preflight with the asking origin (the client is not known
  // yet); only the app's own pages may call the provider from a browser (issue 23).
  scope.addHook("onRequest", async (request, reply) => {
    const origin = request.headers.origin;
    if (request.method !== "OPTIONS" || !origin || origin === appOrigin) return;
    return reply.code(403).header("vary", "Origin").send();
  });
  scope.all(`${mountPath}/*`, forward);
}

/** Drops expired provider records and sign-in counters; a failure is logged, never thrown. */
function expiredRecordSweep(db: Db, limiter: SignInLimiter, logger: FastifyBaseLogger): () => Promise<void> {
  return async () => {
    try {
      await sweepExpiredPayloads(db);
      await limiter.sweep();
    } catch (err) {
      logger.warn({ err }, "could not sweep expired identity records");
    }
  };
}
