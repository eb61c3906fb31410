import { rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { bundleResultPayload, generatedPotentialOf, topologyResultPayload } from "@polyforge/contracts/engine-results";
import type { StructureProblem } from "@polyforge/contracts/molecular-systems";
import { fileExtension } from "@polyforge/contracts/uploads";
import { sql } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import type { Db } from "../../platform/db/database";
import { type ClaimRequest, claimJob } from "../../platform/jobs/claim";
import { withoutPaths } from "../../platform/jobs/engine-process";
import { type EngineExecutor, type ExecutorOutcome, LocalExecutor } from "../../platform/jobs/executor";
import { ProgressWriter } from "../../platform/jobs/progress";
import { storeResultFiles } from "../../platform/jobs/results";
import type { JobContext, JobQueue } from "../../platform/jobs/runner";
import { openWorkdir } from "../../platform/jobs/workdirs";
import { safeFileName } from "../../platform/paths";
import type { FileStore } from "../../platform/storage/file-store";
import {
  ACTIVE_STATUSES,
  findPotentialById,
  giveUpInterrupted,
  HELD_STATUSES,
  notifyPotential,
  type PotentialUpdate,
  renewLease,
  updatePotential,
  WAITING_STATUSES,
} from "./repository";
import type { PotentialRow } from "./schema";
import { potentialKey } from "./service";

/** A potential as the runner holds it (the row is the job). */
export type PotentialJob = PotentialRow;

/** A job taken back this many times (its runner kept dying) ends in error. */
export const MAX_POTENTIAL_ATTEMPTS = 3;

/** Engine codes that say the run itself broke (error, restartable), not the user's input (failed). */
const RUNNER_FAILURES = new Set([
  "ENGINE_CRASHED",
  "ENGINE_NOT_FOUND",
  "INVALID_INPUT",
  "INTERNAL_ERROR",
  "TIME_LIMIT",
  "MEMORY_LIMIT",
  "PROCESSING_FAILED",
  "CANCELLED",
]);

export interface PotentialJobOptions {
  db: Db;
  store: FileStore;
  /** Engine work directories are created under it and removed after each run. */
  workRoot: string;
  logger: FastifyBaseLogger;
  /** Where the engine runs (POLYFORGE_EXECUTOR): here by default, or on Slurm. */
  executor?: EngineExecutor;
}

type Outcome = PotentialUpdate & { status: string };

/**
 * Potentials as jobs of the runner (ARCHITECTURE §7): a generated potential runs generate-potential
 * on the system's structure, an uploaded one validate-topology on its .top against that structure.
 * The row is the job, claimed with the shared claim (lease, heartbeat, fair share); a cancelled or
 * deleted potential is no longer the runner's at its next heartbeat, which kills the engine.
 */
export class PotentialJobQueue implements JobQueue<PotentialRow> {
  private readonly executor: EngineExecutor;

  constructor(private readonly options: PotentialJobOptions) {
    this.executor = options.executor ?? new LocalExecutor(1);
  }

  async claim(request: ClaimRequest): Promise<PotentialRow | undefined> {
    const { db } = this.options;
    for (const row of await giveUpInterrupted(db, MAX_POTENTIAL_ATTEMPTS)) await notifyPotential(db, row);
    // A generation for a scheduler waits there (for its resources) until the scheduler starts it.
    const started = this.executor.kind === "local" ? "processing" : "waiting_for_resources";
    const claimed = await claimJob(
      db,
      {
        table: "potentials",
        waiting: WAITING_STATUSES,
        active: ACTIVE_STATUSES,
        set: sql`status = CASE status WHEN 'pending_validation' THEN 'validating' WHEN 'waiting_for_resources' THEN ${started} ELSE status END,
          progress = 0, stage = NULL, error_code = NULL, error_message = NULL`,
      },
      request,
    );
    if (!claimed) return undefined;
    const row = await findPotentialById(db, claimed.id);
    if (row) await notifyPotential(db, row);
    return row;
  }

  renew(job: PotentialRow, runnerId: string, leaseMs: number): Promise<boolean> {
    return renewLease(this.options.db, job.id, runnerId, leaseMs);
  }

  async run(job: PotentialRow, { runnerId, signal }: JobContext): Promise<void> {
    const { logger } = this.options;
    // On the shared path for Slurm: the compute node reads the inputs and writes the results there.
    const workdir = this.executor.workdirFor(resolve(this.options.workRoot), `potential-${job.id}`, job.attempts);
    try {
      await openWorkdir(this.executor, workdir, runnerId);
      const outcome =
        job.origin === "generate"
          ? await this.generate(job, runnerId, workdir, signal)
          : await this.validate(job, workdir, signal);
      if (signal.aborted) {
        // Cancelled, deleted or taken back: no longer ours to write. On shutdown, hand it back.
        if (signal.reason === "shutdown") await this.release(job, runnerId);
        return;
      }
      await this.finish(job, runnerId, outcome);
    } catch (err) {
      logger.error({ err, potentialId: job.id }, "potential job failed");
      if (signal.aborted) return;
      const message =
        job.origin === "generate"
          ? "The potential could not be generated. Try again."
          : "The topology could not be checked.";
      await this.finish(job, runnerId, {
        status: "error",
        errorCode: "PROCESSING_FAILED",
        errorMessage: message,
        ...(job.origin === "upload" ? { problem: { code: "PROCESSING_FAILED", message, line: null } } : {}),
      }).catch((finishErr: unknown) => logger.error({ err: finishErr }, "recording a failed potential job failed"));
    } finally {
      await rm(workdir, { recursive: true, force: true });
    }
  }

  /** The structure the potential parametrises, copied into the work directory under its format's
   * extension (the engine reads the format from it). */
  private async structureFile(job: PotentialRow, workdir: string): Promise<string> {
    const extension = fileExtension(String(job.input.file ?? "")) || ".pdb";
    const local = join(workdir, `structure${extension}`);
    await this.options.store.download(String(job.input.key), local);
    return local;
  }

  /** generate-potential: GAFF/GAFF2 parameters, AM1-BCC charges, minimisation; its files are kept. */
  private async generate(job: PotentialRow, runnerId: string, workdir: string, signal: AbortSignal): Promise<Outcome> {
    const parameters = job.parameters ?? {};
    const input = {
      structure_file: await this.structureFile(job, workdir),
      force_field: parameters.force_field,
      charge: parameters.charge,
      minimization_steps: parameters.minimization_steps,
      system: { name: job.name, sanitized_name: job.sanitizedName || "potential" },
    };
    // Progress at most every interval whatever the queue state; queue states at once.
    const progress = new ProgressWriter("processing");
    const outcome = await this.engine("generate-potential", input, workdir, signal, job, {
      onProgress: (stage, percent) =>
        progress.progress("processing", () =>
          this.update(job, runnerId, { status: "processing", progress: Math.max(0, Math.min(100, percent)), stage }),
        ),
      onQueueState: ({ waiting, reason }) =>
        progress.now(() =>
          this.update(job, runnerId, {
            status: waiting ? "waiting_for_resources" : "processing",
            schedulerReason: reason,
            ...(waiting ? { progress: 0, stage: null } : {}),
          }),
        ),
    });
    await progress.flushed();
    if (outcome.kind === "cancelled") return { status: "cancelled", errorMessage: outcome.message };
    if (outcome.kind === "error") {
      return {
        status: RUNNER_FAILURES.has(outcome.code) ? "error" : "failed",
        errorCode: outcome.code,
        errorMessage: withoutPaths(outcome.message),
      };
    }
    const resultFiles = await storeResultFiles(this.options.store, workdir, outcome.payload, (name) =>
      potentialKey(job.id, name),
    );
    return {
      status: "completed",
      progress: 100,
      stage: null,
      resultFiles,
      result: generatedPotentialOf(bundleResultPayload.parse(outcome.payload)),
    };
  }

  /** validate-topology: the uploaded .top against the system's structure. */
  private async validate(job: PotentialRow, workdir: string, signal: AbortSignal): Promise<Outcome> {
    const structure = await this.structureFile(job, workdir);
    // The .top keeps the user's file name (made safe), so the engine's messages name it.
    const topology = join(workdir, safeTopologyName(job.file ?? "topology.top"));
    await this.options.store.download(String(job.input.topology_key), topology);
    const outcome = await this.engine(
      "validate-topology",
      { topology_file: topology, structure_file: structure },
      workdir,
      signal,
      job,
      { onProgress: () => {} },
    );
    if (outcome.kind === "cancelled") {
      return { status: "error", problem: { code: "CANCELLED", message: outcome.message, line: null } };
    }
    if (outcome.kind === "error") {
      return { status: "error", problem: { code: outcome.code, message: withoutPaths(outcome.message), line: null } };
    }
    const payload = topologyResultPayload.parse(outcome.payload);
    if (payload.valid === false) {
      const message = withoutPaths(payload.message ?? "The topology does not describe the structure.");
      return { status: "invalid", problem: problemOf(payload.error_code, message) };
    }
    const { atoms, molecules, molecule_types } = payload;
    return { status: "valid", problem: null, result: { atoms, molecules, molecule_types } };
  }

  private async engine(
    command: string,
    input: object,
    workdir: string,
    signal: AbortSignal,
    job: PotentialRow,
    hooks: {
      onProgress: (stage: string, percent: number) => void;
      onQueueState?: (state: { waiting: boolean; reason: string | null }) => void;
    },
  ): Promise<ExecutorOutcome> {
    const inputPath = join(workdir, "job.json");
    await writeFile(inputPath, JSON.stringify(input));
    // Not followed after a restart (a generation is submitted anew), so no scheduler job id.
    return this.executor.run({
      command,
      inputPath,
      workdir,
      signal,
      onProgress: hooks.onProgress,
      ...(hooks.onQueueState ? { onQueueState: hooks.onQueueState } : {}),
      jobName: `polyforge-potential-${job.id}`,
      input,
      // Stopped being ours without a cancel here: cancelled or deleted through another server.
      wasCancelled: async () => {
        const row = await findPotentialById(this.options.db, job.id);
        return !row || row.status === "cancelled";
      },
    });
  }

  /** Writes the row while this runner holds it; a status or progress change is pushed. */
  private async update(
    job: PotentialRow,
    runnerId: string,
    values: PotentialUpdate,
  ): Promise<PotentialRow | undefined> {
    const { db } = this.options;
    const row = await updatePotential(db, job.id, values, { fromStatuses: HELD_STATUSES, leaseOwner: runnerId });
    if (row && (values.status !== undefined || values.progress !== undefined)) await notifyPotential(db, row);
    return row;
  }

  private async finish(job: PotentialRow, runnerId: string, outcome: Outcome): Promise<void> {
    await this.update(job, runnerId, {
      ...outcome,
      leaseOwner: null,
      leaseExpiresAt: null,
      schedulerReason: null,
      finishedAt: sql`now()`,
    });
  }

  /** Back to the queue for this or another runner (shutdown). */
  private async release(job: PotentialRow, runnerId: string): Promise<void> {
    await this.update(job, runnerId, {
      status: job.origin === "generate" ? "waiting_for_resources" : "pending_validation",
      progress: 0,
      stage: null,
      leaseOwner: null,
      leaseExpiresAt: null,
    });
  }
}

/** A problem with the line its message names ("system.top line 12: …"). */
function problemOf(code: string, message: string): StructureProblem {
  const line = /\bline (\d+)\b/.exec(message);
  return { code, message, line: line ? Number(line[1]) : null };
}

/** The user's .top name without anything a path could make of it. */
function safeTopologyName(name: string): string {
  const stem = safeFileName(name, "topology");
  return fileExtension(stem) === ".top" ? stem : `${stem}.top`;
}
