import fastifyCompress from "@fastify/compress";
import fastifySwagger from "@fastify/swagger";
import fastifySwaggerUi from "@fastify/swagger-ui";
import fastifyWebsocket from "@fastify/websocket";
import Fastify, { type FastifyInstance } from "fastify";
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import { createSystemProcessing, type SystemProcessing } from "./jobs";
import { buildingBlocksRoutes } from "./modules/building-blocks/routes";
import { catalogueRoutes } from "./modules/catalogue/routes";
import { clientConfigRoutes } from "./modules/client-config/routes";
import { featuresRoutes } from "./modules/features/routes";
import { feedbackRoutes } from "./modules/feedback/routes";
import { healthRoutes } from "./modules/health/routes";
import type { ModuleContext } from "./modules/module-context";
import { molecularSystemsRoutes } from "./modules/molecular-systems/routes";
import { notificationRoutes } from "./modules/notifications/routes";
import { polymerBuilderRoutes, systemDraftRoutes } from "./modules/polymer-builder/routes";
import { polymersRoutes } from "./modules/polymers/routes";
import { potentialsRoutes } from "./modules/potentials/routes";
import { projectsRoutes } from "./modules/projects/routes";
import { segmentsRoutes } from "./modules/segments/routes";
import { systemExecutionsRoutes } from "./modules/system-executions/routes";
import { usersRoutes } from "./modules/users/routes";
import { resolveUser } from "./modules/users/service";
import { wireModules } from "./modules/wiring";
import { authenticationHook, createAuthenticator } from "./platform/auth/authenticate";
import { type IssuerKeys, localTokenVerifier, remoteTokenVerifier, type TokenVerifier } from "./platform/auth/tokens";
import { smilesChecker } from "./platform/chemistry/smiles-checker";
import { clientLimitServerOptions } from "./platform/client-limits";
import type { Config } from "./platform/config";
import { type Database, type DatabaseTarget, databaseTarget, openDatabase } from "./platform/db/database";
import { installErrorHandling } from "./platform/errors";
import { NotificationHub } from "./platform/events/notifications";
import { documentRequestSchemas, installApiRateLimits, installHttpHardening } from "./platform/http";
import { createEmbeddedIdentity } from "./platform/identity/embedded";
import { API_AUDIENCE } from "./platform/identity/provider";
import { configureEngineLimits } from "./platform/jobs/engine-process";
import { jobFileRoute } from "./platform/jobs/slurm/transfer-route";
import { ABANDONED_UPLOAD_MS, LocalFileStore } from "./platform/storage/file-store";
import { scheduleUploadSweep } from "./platform/storage/multipart";
import { localPartRoute } from "./platform/storage/part-route";
import { registerWebApp } from "./platform/web";

export interface AppOptions {
  config: Config;
  /** Defaults to the config's database (PGlite under the data directory, or DATABASE_URL). */
  database?: DatabaseTarget;
  /** Tests sign their own tokens: trust these keys instead of mounting an identity provider. */
  issuerKeys?: IssuerKeys;
  /** The in-process job runner processes systems (ARCHITECTURE §7); false leaves jobs queued. */
  runJobs?: boolean;
}

declare module "fastify" {
  interface FastifyInstance {
    /** The app's database (tests reach it to publish notifications or inspect rows). */
    database: Database;
    /** The app's job runners (tests wait for a runner to let a job go). */
    processing: SystemProcessing;
  }
}

export type App = FastifyInstance;

/** Builds the whole server: database (migrated), identity, API routes, docs and the web app. */
export async function buildApp(options: AppOptions): Promise<App> {
  const { config } = options;
  const app = Fastify({
    logger: {
      level: config.logLevel,
      // The notifications socket carries the access token in its query string: keep it out of logs.
      serializers: {
        req: (req) => ({
          method: req.method,
          url: req.url.replace(/([?&]token=)[^&]*/, "$1[redacted]"),
          host: req.host,
          remoteAddress: req.ip,
        }),
      },
    },
    // Behind a reverse proxy every request comes from the proxy: the hops it names as trusted say
    // who the client is (the sign-in limit counts per client address). URLs still come from PUBLIC_URL.
    trustProxy: config.trustProxy,
    // `/api/v2/systems/` and `/api/v2/systems` are the same resource.
    routerOptions: { ignoreTrailingSlash: true },
    // Graceful shutdown waits for requests in flight, but not forever.
    forceCloseConnections: "idle",
    // Silent and slow clients are cut off (platform/client-limits.ts).
    ...clientLimitServerOptions(config.clientLimits),
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorateRequest("user", null);
  installErrorHandling(app);
  // RDKit faults are logged through the server's logger (the checker is one per process).
  smilesChecker.logger = app.log;
  await installHttpHardening(app, config);
  configureEngineLimits(config.engineLimits);

  const database = await openDatabase(options.database ?? databaseTarget(config), app.log);
  app.decorate("database", database);
  let notifications: NotificationHub | undefined;
  const processing = createSystemProcessing(config, database.db, app.log);
  app.decorate("processing", processing);
  const closeResources = async () => {
    await processing.runner.stop();
    await processing.structures.stop();
    await processing.potentials.stop();
    await notifications?.close();
    await database.close();
  };
  try {
    notifications = await NotificationHub.start(database, app.log);
    await registerRoutes(app, { config, database, notifications, processing }, options.issuerKeys);
    if (options.runJobs !== false) {
      processing.runner.start();
      processing.structures.start();
      processing.potentials.start();
    }
  } catch (err) {
    await closeResources();
    throw err;
  }
  app.addHook("onClose", closeResources);
  return app;
}

async function registerRoutes(app: App, context: ModuleContext, issuerKeys: IssuerKeys | undefined): Promise<void> {
  const { config, database } = context;
  // The modules' hooks into each other (sample blocks for new users, block usage checks).
  wireModules();
  // Brotli or gzip as the client accepts, for every reply registered after this: API JSON, the web
  // app's files and the guide. Notifications travel by WebSocket, which it leaves alone.
  await app.register(fastifyCompress, { encodings: ["br", "gzip"], threshold: 1024 });
  await app.register(fastifySwagger, {
    openapi: {
      info: { title: "PolyForge API", version: "2" },
      // Every call needs the bearer token unless its route says `security: []`.
      components: { securitySchemes: { bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" } } },
      security: [{ bearer: [] }],
    },
    transform: documentRequestSchemas,
  });
  await app.register(fastifySwaggerUi, { routePrefix: "/api/docs" });
  app.get("/api/docs/openapi.json", { schema: { hide: true } }, async () => app.swagger());

  const verifier = await tokenVerifier(app, context, issuerKeys);
  const authenticate = createAuthenticator(verifier, (claims) => resolveUser(database.db, claims));

  await app.register(fastifyWebsocket);
  await app.register(healthRoutes(database));
  await app.register(clientConfigRoutes(config, verifier.issuer));
  await app.register(featuresRoutes(config));
  await app.register(notificationRoutes(context, authenticate));
  // The embedded store serves S3's part PUTs itself (signed URLs, no bearer token), after tidying
  // what a server killed mid-upload left; uploads nothing touched for a day go (its lifecycle rule).
  const { store } = context.processing;
  if (store instanceof LocalFileStore) {
    await store.recoverInterruptedUploads(2 * config.clientLimits.uploadIdleTimeoutMs);
    await app.register(localPartRoute(store));
    scheduleUploadSweep(app, "embedded store uploads", () => store.removeAbandonedUploads(ABANDONED_UPLOAD_MS));
  }
  // …and the presigned GETs and PUTs of Slurm jobs that reach it through the store.
  if (config.slurm?.transfer === "store" && !config.s3.bucket) {
    await app.register(jobFileRoute(config, context.processing.store));
  }
  // Every /api/v2 resource requires a signed-in caller.
  await app.register(
    async (api) => {
      api.addHook("onRequest", authenticationHook(authenticate));
      await installApiRateLimits(api, config, database.db);
      await api.register(feedbackRoutes(context));
      await api.register(usersRoutes(context));
      await api.register(buildingBlocksRoutes(context));
      await api.register(systemDraftRoutes(context));
      await api.register(segmentsRoutes(context));
      await api.register(polymersRoutes(context));
      await api.register(polymerBuilderRoutes(context));
      await api.register(systemExecutionsRoutes(context));
      await api.register(catalogueRoutes(context));
      await api.register(molecularSystemsRoutes(context));
      await api.register(potentialsRoutes(context));
      await api.register(projectsRoutes(context));
    },
    { prefix: "/api/v2" },
  );

  await registerWebApp(app, config.webDistDir, config.docsDistDir);
}

/** Whose tokens we trust: injected test keys, an external provider (OIDC_ISSUER), or the embedded
 * provider, which is mounted on this app under /auth/realms/polyforge. */
async function tokenVerifier(
  app: FastifyInstance,
  context: ModuleContext,
  issuerKeys?: IssuerKeys,
): Promise<TokenVerifier> {
  const { config } = context;
  if (issuerKeys) return localTokenVerifier(issuerKeys, config.oidcAudience);
  if (config.oidcIssuer) return remoteTokenVerifier(config.oidcIssuer, config.oidcAudience);
  const identity = await createEmbeddedIdentity({ db: context.database.db, config, logger: app.log });
  await identity.register(app);
  return localTokenVerifier(identity, API_AUDIENCE);
}
