import { join } from "node:path";
import type { FastifyBaseLogger } from "fastify";
import type { Config } from "../../platform/config";
import type { Db } from "../../platform/db/database";
import { JobRunner, type RunnerOptions } from "../../platform/jobs/runner";
import { createFileStore, type FileStore } from "../../platform/storage/file-store";
import { type ProcessingOptions, SystemProcessingQueue } from "./processing";
import type { SystemExecutionRow } from "./schema";

/** The processing side of systems: the file store with the results and the runner of the jobs. */
export interface SystemProcessing {
  store: FileStore;
  runner: JobRunner<SystemExecutionRow>;
}

export type ProcessingTuning = Partial<Pick<RunnerOptions, "leaseMs" | "heartbeatMs" | "pollMs" | "maxJobs">> &
  Pick<ProcessingOptions, "engineCommand">;

/** Used by the server (in-process runner) and by `polyforge worker`. The runner is not started. */
export function createSystemProcessing(
  config: Config,
  db: Db,
  logger: FastifyBaseLogger,
  tuning: ProcessingTuning = {},
): SystemProcessing {
  const store = createFileStore(config);
  const queue = new SystemProcessingQueue({
    db,
    store,
    workRoot: join(config.dataDir, "jobs"),
    logger,
    engineCommand: tuning.engineCommand,
  });
  const runner = new JobRunner(queue, { ...tuning, maxJobs: tuning.maxJobs ?? config.maxJobs, logger });
  return { store, runner };
}
