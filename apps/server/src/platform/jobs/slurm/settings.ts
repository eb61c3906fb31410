import { z } from "zod";

/** The engine's commands (ARCHITECTURE §6) that run as jobs; each may get its own Slurm resources. */
export const ENGINE_JOB_KINDS = [
  "build-system",
  "build-structure",
  "validate-structure",
  "convert-smiles",
  "generate-potential",
  "validate-topology",
] as const;

/** Slurm's time formats: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS. */
const SLURM_TIME = /^(\d+|\d+:\d{2}|\d+:\d{2}:\d{2}|\d+-\d+(:\d{2}(:\d{2})?)?)$/;
/** A memory size as sbatch takes it: a number with an optional K, M, G or T suffix. */
const SLURM_MEMORY = /^\d+[KMGT]?$/i;
/** Partition, account and QOS names: what Slurm accepts in a name, no shell or option syntax. */
const SLURM_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

const resourcesSchema = z
  .object({
    partition: z.string().regex(SLURM_NAME, "must be a Slurm partition name").optional(),
    account: z.string().regex(SLURM_NAME, "must be a Slurm account name").optional(),
    qos: z.string().regex(SLURM_NAME, "must be a Slurm QOS name").optional(),
    time: z.string().regex(SLURM_TIME, "must be a Slurm time limit such as 30, 2:00:00 or 1-00:00:00").optional(),
    cpus: z.int().min(1).max(1024).optional(),
    memory: z.string().regex(SLURM_MEMORY, "must be a memory size such as 4096M or 8G").optional(),
    gpus: z.int().min(0).max(64).optional(),
  })
  .strict();

export type SlurmResources = z.infer<typeof resourcesSchema>;

/** POLYFORGE_SLURM_JOBS: JSON, resources per job kind, e.g. {"build-system":{"cpus":4,"gpus":1}}. */
const perKindSchema = z.preprocess(
  (v) => {
    if (v === undefined || v === "") return {};
    if (typeof v !== "string") return v;
    try {
      return JSON.parse(v);
    } catch {
      return v; // reported as not an object below
    }
  },
  z.partialRecord(z.enum(ENGINE_JOB_KINDS), resourcesSchema),
);

const optionalText = z.preprocess((v) => (v === "" ? undefined : v), z.string().optional());
const optionalName = (what: string) =>
  z.preprocess(
    (v) => (v === "" ? undefined : v),
    z.string().regex(SLURM_NAME, `must be a Slurm ${what} name`).optional(),
  );

/** The settings of the Slurm executor, merged into the server's settings (platform/config.ts). */
export const slurmEnvironmentShape = {
  POLYFORGE_EXECUTOR: z.enum(["local", "slurm"]).default("local"),
  /** How a job's files reach the compute node and come back: `shared`, a directory both see
   * (POLYFORGE_SLURM_SHARED_DIR); `store`, the file store by presigned URLs (S3, or this server's
   * signed URLs with the embedded store), for clusters without a filesystem shared with the server. */
  POLYFORGE_SLURM_TRANSFER: z.enum(["shared", "store"]).default("shared"),
  /** A directory both the server and the compute nodes see (NFS, Lustre, …): inputs and results. */
  POLYFORGE_SLURM_SHARED_DIR: optionalText,
  /** With the store transfer: where on the node a job runs (node-local scratch; default /tmp). */
  POLYFORGE_SLURM_SCRATCH_DIR: optionalText,
  /** The engine's Python on the compute nodes (default: this checkout's .venv). */
  POLYFORGE_SLURM_PYTHON: optionalText,
  POLYFORGE_SLURM_PARTITION: optionalName("partition"),
  POLYFORGE_SLURM_ACCOUNT: optionalName("account"),
  POLYFORGE_SLURM_QOS: optionalName("QOS"),
  POLYFORGE_SLURM_JOBS: perKindSchema,
  /** The OpenMM platform of the jobs (the engine's POLYFORGE_OPENMM_PLATFORM): CPU, auto (CUDA, then
   * OpenCL, else the CPU with the reason in the run's log), CUDA or OpenCL. Unset: auto for jobs
   * given GPUs (`gpus` in POLYFORGE_SLURM_JOBS), the CPU for the others. */
  POLYFORGE_SLURM_OPENMM_PLATFORM: z.preprocess(
    (v) => (v === "" ? undefined : v),
    z.enum(["CPU", "auto", "CUDA", "OpenCL"]).optional(),
  ),
  /** Jobs the server keeps submitted at once (Slurm queues them; the local runner's is MAX_JOBS). */
  POLYFORGE_SLURM_MAX_JOBS: z.coerce.number().int().min(1).max(10_000).default(200),
  /** How often all active jobs are polled, in one call. */
  POLYFORGE_SLURM_POLL_MS: z.coerce.number().int().min(200).max(600_000).default(3_000),
  /** slurmrestd's URL; unset = the command-line tools (sbatch, squeue, sacct, scancel). */
  POLYFORGE_SLURM_REST_URL: z.preprocess((v) => (v === "" ? undefined : v), z.url().optional()),
  /** The JWT slurmrestd accepts (`scontrol token`), or a file holding it (re-read on each call). */
  POLYFORGE_SLURM_JWT: optionalText,
  POLYFORGE_SLURM_JWT_FILE: optionalText,
  /** The Slurm user the REST calls act as. */
  POLYFORGE_SLURM_USER: optionalText,
};

const slurmEnvironmentSchema = z.object(slurmEnvironmentShape);
type SlurmEnvironment = z.infer<typeof slurmEnvironmentSchema>;

export interface SlurmSettings {
  transfer: "shared" | "store";
  /** The shared directory (transfer `shared`); unused with `store`. */
  sharedDir: string;
  /** The node-local directory jobs run in with the store transfer. */
  scratchDir: string;
  /** How long a job's objects stay in the store after its end (store transfer), so that a server
   * that stopped before recording the run collects the same results again. */
  storeCleanupMs: number;
  python: string | undefined;
  defaults: SlurmResources;
  perKind: Partial<Record<(typeof ENGINE_JOB_KINDS)[number], SlurmResources>>;
  openmmPlatform: "CPU" | "auto" | "CUDA" | "OpenCL" | undefined;
  maxJobs: number;
  pollMs: number;
  rest: { url: string; user: string; jwt: string | undefined; jwtFile: string | undefined } | undefined;
}

/** The Slurm settings, or a problem with them as one line (the executor is slurm but they do not
 * say where the shared directory is or how to reach slurmrestd). */
export function slurmSettingsFrom(
  e: SlurmEnvironment,
  resolvePath: (path: string) => string,
): SlurmSettings | string | undefined {
  if (e.POLYFORGE_EXECUTOR !== "slurm") return undefined;
  if (e.POLYFORGE_SLURM_TRANSFER === "shared" && !e.POLYFORGE_SLURM_SHARED_DIR) {
    return "POLYFORGE_SLURM_SHARED_DIR must name a directory the compute nodes share when POLYFORGE_EXECUTOR is slurm";
  }
  let rest: SlurmSettings["rest"];
  if (e.POLYFORGE_SLURM_REST_URL) {
    if (!e.POLYFORGE_SLURM_JWT && !e.POLYFORGE_SLURM_JWT_FILE) {
      return "POLYFORGE_SLURM_JWT or POLYFORGE_SLURM_JWT_FILE is needed with POLYFORGE_SLURM_REST_URL";
    }
    if (!e.POLYFORGE_SLURM_USER) return "POLYFORGE_SLURM_USER is needed with POLYFORGE_SLURM_REST_URL";
    rest = {
      url: e.POLYFORGE_SLURM_REST_URL.replace(/\/+$/, ""),
      user: e.POLYFORGE_SLURM_USER,
      jwt: e.POLYFORGE_SLURM_JWT,
      jwtFile: e.POLYFORGE_SLURM_JWT_FILE && resolvePath(e.POLYFORGE_SLURM_JWT_FILE),
    };
  }
  return {
    transfer: e.POLYFORGE_SLURM_TRANSFER,
    sharedDir: e.POLYFORGE_SLURM_SHARED_DIR ? resolvePath(e.POLYFORGE_SLURM_SHARED_DIR) : "",
    scratchDir: e.POLYFORGE_SLURM_SCRATCH_DIR ?? "/tmp",
    storeCleanupMs: 15 * 60_000,
    python: e.POLYFORGE_SLURM_PYTHON && resolvePath(e.POLYFORGE_SLURM_PYTHON),
    defaults: {
      partition: e.POLYFORGE_SLURM_PARTITION,
      account: e.POLYFORGE_SLURM_ACCOUNT,
      qos: e.POLYFORGE_SLURM_QOS,
    },
    perKind: e.POLYFORGE_SLURM_JOBS,
    openmmPlatform: e.POLYFORGE_SLURM_OPENMM_PLATFORM,
    maxJobs: e.POLYFORGE_SLURM_MAX_JOBS,
    pollMs: e.POLYFORGE_SLURM_POLL_MS,
    rest,
  };
}
