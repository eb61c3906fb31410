import { join } from "node:path";
import type { FastifyBaseLogger } from "fastify";
import { type StructureJob, StructureJobQueue } from "./modules/molecular-systems/structure-jobs";
import { type PotentialJob, PotentialJobQueue } from "./modules/potentials/jobs";
import { type ProcessingOptions, SystemProcessingQueue } from "./modules/system-executions/processing";
import type { SystemExecutionRow } from "./modules/system-executions/schema";
import type { Config } from "./platform/config";
import type { Db } from "./platform/db/database";
import { createEngineExecutor } from "./platform/jobs/create-executor";
import { JobRunner, type RunnerOptions } from "./platform/jobs/runner";
import { sweepWorkdirs } from "./platform/jobs/workdirs";
import { createFileStore, type FileStore } from "./platform/storage/file-store";

/** The engine jobs' side of the server, built once by app.ts (in-process runners) or worker.ts
 * (`polyforge worker`): the file store with the results and the runners of the three queues.
 * A composition root: the only place that knows every queue. */
export interface SystemProcessing {
  store: FileStore;
  runner: JobRunner<SystemExecutionRow>;
  /** validate-structure and convert-smiles jobs (ARCHITECTURE §7b): the same runner, its own queue
   * and slots, so a long simulation never holds back a file's validation (validationSlots). */
  structures: JobRunner<StructureJob>;
  /** Potential generation (generate-potential) and .top checks (validate-topology): its
   * own queue and slots too. */
  potentials: JobRunner<PotentialJob>;
}

export type ProcessingTuning = Partial<
  Pick<RunnerOptions, "leaseMs" | "heartbeatMs" | "pollMs" | "maxJobs" | "userShare">
> &
  Pick<ProcessingOptions, "engineCommand" | "executor">;

/** Used by the server (in-process runner) and by `polyforge worker`. The runner is not started. */
export function createSystemProcessing(
  config: Config,
  db: Db,
  logger: FastifyBaseLogger,
  tuning: ProcessingTuning = {},
): SystemProcessing {
  const store = createFileStore(config);
  const executor = tuning.executor ?? createEngineExecutor(config, logger);
  const workRoot = join(config.dataDir, "jobs");
  // What the attempts of a server or worker killed mid-job left on this machine goes now.
  void sweepWorkdirs(workRoot).catch((err: unknown) => logger.warn({ err }, "sweeping work directories failed"));
  const queue = new SystemProcessingQueue({
    db,
    store,
    workRoot,
    logger,
    engineCommand: tuning.engineCommand,
    executor,
  });
  const slots = {
    maxJobs: tuning.maxJobs ?? executor.maxJobs,
    userShare: tuning.userShare ?? config.userJobShare,
  };
  const runner = new JobRunner(queue, { ...tuning, ...slots, logger });
  const structureQueue = new StructureJobQueue({ db, store, workRoot, logger, executor });
  const structures = new JobRunner(structureQueue, { ...tuning, ...validationSlots(slots), logger });
  const potentialQueue = new PotentialJobQueue({ db, store, workRoot, logger, executor });
  const potentials = new JobRunner(potentialQueue, { ...tuning, ...slots, logger });
  return { store, runner, structures, potentials };
}

/** Validations and conversions have slots one user cannot fill: at least two, of which one user's
 * jobs hold at most all but one, so another user's small file starts while one user's large files
 * are read (with the default single slot, one user's file made everyone else's wait). */
function validationSlots(slots: { maxJobs: number; userShare: number }): { maxJobs: number; userShare: number } {
  const maxJobs = Math.max(2, slots.maxJobs);
  return { maxJobs, userShare: Math.min(slots.userShare, (maxJobs - 1) / maxJobs) };
}
