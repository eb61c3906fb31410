import { isIP } from "node:net";
import { isAbsolute, resolve } from "node:path";
import { DEFAULT_JOB_LIMITS, type JobLimits } from "@polyforge/contracts/job-limits";
import { z } from "zod";
import { type SlurmSettings, slurmEnvironmentShape, slurmSettingsFrom } from "./jobs/slurm/settings";
import { REPO_ROOT } from "./paths";

/** Empty strings count as unset, so `FOO= make start` behaves like no FOO at all. */
const optionalText = z.preprocess((v) => (v === "" ? undefined : v), z.string().optional());
const optionalUrl = z.preprocess((v) => (v === "" ? undefined : v), z.url().optional());

/** proxy-addr's names for address ranges, accepted in a TRUST_PROXY list. */
const PROXY_RANGE_NAMES = new Set(["loopback", "linklocal", "uniquelocal"]);

/** An address, a subnet (address/prefix) or a proxy-addr range name. */
function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address, prefix, ...rest] = entry.split("/");
  const family = isIP(address ?? "");
  if (family === 0 || rest.length > 0) return false;
  return prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

/** TRUST_PROXY: which hops in front of the server may say who the client is (X-Forwarded-For):
 * unset or "false" none (the address the connection comes from), "true" every hop, or a
 * comma-separated list of proxy addresses, subnets and range names. (No hop count: Fastify trusts
 * nobody given one, since a client could name itself by sending enough hops.) */
const trustProxySchema = z.preprocess(
  (v) => (v === "" || v === undefined ? "false" : v),
  z
    .string()
    .transform((text) => text.trim())
    .refine(
      (text) => /^(true|false)$/.test(text) || text.split(",").every((entry) => isProxyAddress(entry.trim())),
      'must be true, false, or a comma-separated list of addresses, subnets or "loopback", "linklocal", "uniquelocal"',
    )
    .transform((text): boolean | string =>
      text === "true" ? true : text === "false" ? false : text.replace(/\s+/g, ""),
    ),
);

const environmentSchema = z.object({
  PORT: z.coerce.number().int().min(1).max(65_535).default(8080),
  HOST: z.string().min(1).default("0.0.0.0"),
  PUBLIC_URL: optionalUrl,
  TRUST_PROXY: trustProxySchema,
  POLYFORGE_DATA_DIR: z.string().min(1).default("./data"),
  DATABASE_URL: z.preprocess(
    (v) => (v === "" ? undefined : v),
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
      .optional(),
  ),
  OIDC_ISSUER: optionalUrl,
  OIDC_AUDIENCE: optionalText,
  S3_ENDPOINT: optionalUrl,
  S3_REGION: optionalText,
  S3_BUCKET: optionalText,
  S3_ACCESS_KEY_ID: optionalText,
  S3_SECRET_ACCESS_KEY: optionalText,
  UPLOAD_SIGNING_KEY: z.preprocess((v) => (v === "" ? undefined : v), z.string().min(32).optional()),
  FLAGS_API_HOST: optionalUrl,
  FLAGS_CLIENT_KEY: optionalText,
  DOCS_URL: optionalUrl,
  POLYFORGE_DEMO_PASSWORD: optionalText,
  POLYFORGE_MAX_JOBS: z.coerce.number().int().min(1).max(64).default(1),
  /** The share of a runner's job slots one user's jobs may hold (issue 23): at most that share,
   * rounded down, and at least one slot; 1 lets one user fill every slot. */
  POLYFORGE_USER_JOB_SHARE: z.coerce.number().gt(0).max(1).default(0.5),
  // What one job may ask (issue 23); see packages/contracts/src/job-limits.ts.
  POLYFORGE_MAX_ATOMS: z.coerce.number().int().min(1).default(DEFAULT_JOB_LIMITS.maxAtoms),
  POLYFORGE_MAX_CELL_SIDE: z.coerce.number().min(20).default(DEFAULT_JOB_LIMITS.maxCellSide),
  POLYFORGE_MAX_TEMPERATURE: z.coerce.number().positive().default(DEFAULT_JOB_LIMITS.maxTemperature),
  POLYFORGE_MAX_MINIMIZATION_STEPS: z.coerce.number().int().min(1).default(DEFAULT_JOB_LIMITS.maxMinimizationSteps),
  POLYFORGE_MAX_DYNAMICS_STEPS: z.coerce.number().int().min(1).default(DEFAULT_JOB_LIMITS.maxDynamicsSteps),
  /** Hours an engine process may run, and megabytes it may hold, before the job ends as error. */
  POLYFORGE_JOB_TIME_LIMIT_HOURS: z.coerce.number().positive().default(48),
  POLYFORGE_JOB_MEMORY_LIMIT_MB: z.coerce.number().int().min(64).default(16_384),
  /** Accounts the embedded provider opens from one address within 15 minutes. */
  POLYFORGE_SIGN_UPS_PER_ADDRESS: z.coerce.number().int().min(1).default(5),
  /** Failed sign-ins accepted from one address, whatever the emails, within 15 minutes. */
  POLYFORGE_SIGN_IN_FAILURES_PER_ADDRESS: z.coerce.number().int().min(1).default(50),
  /** Per user and minute: API writes (POST, PUT, PATCH, DELETE), and processing starts among them. */
  POLYFORGE_WRITES_PER_MINUTE: z.coerce.number().int().min(1).default(300),
  POLYFORGE_JOB_STARTS_PER_MINUTE: z.coerce.number().int().min(1).default(10),
  /** Seconds a client has to send a request's headers and body (every route but upload parts). */
  POLYFORGE_REQUEST_TIMEOUT_SECONDS: z.coerce.number().positive().max(3600).default(30),
  /** Seconds an upload part's body may go without a byte before the connection is closed. */
  POLYFORGE_UPLOAD_IDLE_TIMEOUT_SECONDS: z.coerce.number().positive().max(3600).default(60),
  /** Connections (requests in flight, behind a trusted proxy) one client address may hold open. */
  POLYFORGE_CONNECTIONS_PER_ADDRESS: z.coerce.number().int().min(1).default(128),
  /** Encrypts the embedded provider's signing and cookie keys at rest (at least 32 characters). */
  POLYFORGE_SECRET_KEY: z.preprocess((v) => (v === "" ? undefined : v), z.string().min(32).optional()),
  ...slurmEnvironmentShape,
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  WEB_DIST_DIR: z.string().min(1).default("apps/web/dist"),
  DOCS_DIST_DIR: z.string().min(1).default("docs/guide/.vitepress/dist"),
});

/** The client key our own feature file answers to when no GrowthBook server is configured. */
export const DEFAULT_FLAGS_CLIENT_KEY = "sdk-polyforge";

export interface Config {
  port: number;
  host: string;
  /** Where browsers reach this server; token issuer and redirect URIs derive from it. */
  publicUrl: string;
  /** Fastify's trustProxy: which hops' X-Forwarded-For tells the client's address (sign-in limits,
   * logs). False unless the server sits behind a reverse proxy. */
  trustProxy: boolean | string;
  dataDir: string;
  /** node-postgres connection string; unset = embedded PGlite under `dataDir/pg`. */
  databaseUrl: string | undefined;
  /** External OpenID provider (e.g. a Keycloak realm URL); unset = the embedded provider. */
  oidcIssuer: string | undefined;
  oidcAudience: string | undefined;
  s3: {
    endpoint: string | undefined;
    region: string | undefined;
    bucket: string | undefined;
    accessKeyId: string | undefined;
    secretAccessKey: string | undefined;
  };
  /** Signs the local store's part URLs; unset = a key generated once in the data directory. */
  uploadSigningKey: string | undefined;
  flags: { apiHost: string; clientKey: string };
  docsUrl: string | undefined;
  demoPassword: string | undefined;
  maxJobs: number;
  /** The share of a runner's job slots one user's jobs may hold (fair share). */
  userJobShare: number;
  /** What one processing job may ask; checked when a system is finished. */
  jobLimits: JobLimits;
  /** Each engine process's wall-clock and memory limits. */
  engineLimits: { wallClockMs: number; memoryBytes: number };
  /** Sign-ups the embedded provider accepts from one address within 15 minutes. */
  signUpsPerAddress: number;
  /** Failed sign-ins the embedded provider accepts from one address within 15 minutes. */
  signInFailuresPerAddress: number;
  /** Per user and minute: API writes, and processing starts. */
  apiRateLimits: { writesPerMinute: number; jobStartsPerMinute: number };
  /** Slow and greedy clients: how long a request may take to arrive, how long an upload part's body
   * may stall, and how many connections one client address may hold. */
  clientLimits: ClientLimits;
  /** Encrypts the embedded provider's keys at rest when set. */
  secretKey: string | undefined;
  /** Where engine jobs run: `local` (engine processes of this server or worker) or `slurm`. */
  executor: "local" | "slurm";
  /** The Slurm executor's settings when `executor` is slurm. */
  slurm: SlurmSettings | undefined;
  logLevel: z.infer<typeof environmentSchema>["LOG_LEVEL"];
  webDistDir: string;
  /** The built user guide (VitePress), served at /docs. */
  docsDistDir: string;
}

export interface ClientLimits {
  requestTimeoutMs: number;
  uploadIdleTimeoutMs: number;
  connectionsPerAddress: number;
}

/** A setting that stops the start; its message is the one line printed. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Reads and validates the settings (ARCHITECTURE §1). Relative directories resolve against the
 * repository root, so the server behaves the same whatever directory it was started from. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = environmentSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")} ${issue.message}`);
    throw new ConfigError(`Invalid setting: ${problems.join("; ")}`);
  }
  const e = parsed.data;
  const slurm = slurmSettingsFrom(e, fromRepoRoot);
  if (typeof slurm === "string") throw new ConfigError(`Invalid setting: ${slurm}`);
  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, "");
  return {
    port: e.PORT,
    host: e.HOST,
    publicUrl,
    trustProxy: e.TRUST_PROXY,
    dataDir: fromRepoRoot(e.POLYFORGE_DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    oidcIssuer: e.OIDC_ISSUER?.replace(/\/+$/, ""),
    oidcAudience: e.OIDC_AUDIENCE,
    s3: {
      endpoint: e.S3_ENDPOINT,
      region: e.S3_REGION,
      bucket: e.S3_BUCKET,
      accessKeyId: e.S3_ACCESS_KEY_ID,
      secretAccessKey: e.S3_SECRET_ACCESS_KEY,
    },
    uploadSigningKey: e.UPLOAD_SIGNING_KEY,
    flags: {
      apiHost: (e.FLAGS_API_HOST ?? publicUrl).replace(/\/+$/, ""),
      clientKey: e.FLAGS_CLIENT_KEY ?? DEFAULT_FLAGS_CLIENT_KEY,
    },
    docsUrl: e.DOCS_URL,
    demoPassword: e.POLYFORGE_DEMO_PASSWORD,
    maxJobs: e.POLYFORGE_MAX_JOBS,
    userJobShare: e.POLYFORGE_USER_JOB_SHARE,
    jobLimits: {
      ...DEFAULT_JOB_LIMITS,
      maxAtoms: e.POLYFORGE_MAX_ATOMS,
      maxCellSide: e.POLYFORGE_MAX_CELL_SIDE,
      maxTemperature: e.POLYFORGE_MAX_TEMPERATURE,
      maxMinimizationSteps: e.POLYFORGE_MAX_MINIMIZATION_STEPS,
      maxDynamicsSteps: e.POLYFORGE_MAX_DYNAMICS_STEPS,
    },
    engineLimits: {
      wallClockMs: e.POLYFORGE_JOB_TIME_LIMIT_HOURS * 3_600_000,
      memoryBytes: e.POLYFORGE_JOB_MEMORY_LIMIT_MB * 1024 * 1024,
    },
    signUpsPerAddress: e.POLYFORGE_SIGN_UPS_PER_ADDRESS,
    signInFailuresPerAddress: e.POLYFORGE_SIGN_IN_FAILURES_PER_ADDRESS,
    apiRateLimits: {
      writesPerMinute: e.POLYFORGE_WRITES_PER_MINUTE,
      jobStartsPerMinute: e.POLYFORGE_JOB_STARTS_PER_MINUTE,
    },
    clientLimits: {
      requestTimeoutMs: e.POLYFORGE_REQUEST_TIMEOUT_SECONDS * 1000,
      uploadIdleTimeoutMs: e.POLYFORGE_UPLOAD_IDLE_TIMEOUT_SECONDS * 1000,
      connectionsPerAddress: e.POLYFORGE_CONNECTIONS_PER_ADDRESS,
    },
    secretKey: e.POLYFORGE_SECRET_KEY,
    executor: e.POLYFORGE_EXECUTOR,
    slurm,
    logLevel: e.LOG_LEVEL,
    webDistDir: fromRepoRoot(e.WEB_DIST_DIR),
    docsDistDir: fromRepoRoot(e.DOCS_DIST_DIR),
  };
}

function fromRepoRoot(path: string): string {
  return isAbsolute(path) ? path : resolve(REPO_ROOT, path);
}
