import { join } from "node:path";
import { bundleResultPayload, generatedPotentialOf, topologyResultPayload } from "@polyforge/contracts/engine-results";
import type { StructureProblem } from "@polyforge/contracts/molecular-systems";
import { fileExtension } from "@polyforge/contracts/uploads";
import type { Db } from "../../platform/db/database";
import type { ClaimRequest } from "../../platform/jobs/claim";
import { withoutPaths } from "../../platform/jobs/engine-process";
import {
  type EngineCall,
  EngineJobQueue,
  type EngineQueueOptions,
  type EngineRun,
} from "../../platform/jobs/engine-queue";
import type { ExecutorOutcome, QueueState } from "../../platform/jobs/executor";
import { storeResultFiles } from "../../platform/jobs/results";
import { endedJob } from "../../platform/jobs/table";
import { safeFileName } from "../../platform/paths";
import type { FileStore } from "../../platform/storage/file-store";
import {
  claimPotential,
  findPotentialById,
  giveUpInterrupted,
  HELD_STATUSES,
  notifyPotential,
  type PotentialUpdate,
  renewLease,
  updatePotential,
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

export interface PotentialJobOptions extends EngineQueueOptions {
  db: Db;
  store: FileStore;
}

type Outcome = PotentialUpdate & { status: string };

/**
 * Potentials as jobs of the runner (ARCHITECTURE §7): a generated potential runs generate-potential
 * on the system's structure, an uploaded one validate-topology on its .top against that structure.
 * The row is the job, claimed with the shared claim (lease, heartbeat, fair share); a cancelled or
 * deleted potential is no longer the runner's at its next heartbeat, which kills the engine.
 */
export class PotentialJobQueue extends EngineJobQueue<PotentialRow, Outcome> {
  protected readonly kind = "potential job";
  protected readonly logKey = "potentialId";

  constructor(private readonly options: PotentialJobOptions) {
    super(options);
  }

  async claim(request: ClaimRequest): Promise<PotentialRow | undefined> {
    const { db } = this.options;
    for (const row of await giveUpInterrupted(db, MAX_POTENTIAL_ATTEMPTS)) await notifyPotential(db, row);
    // A generation for a scheduler waits there (for its resources) until the scheduler starts it.
    const row = await claimPotential(
      db,
      request,
      this.executor.kind === "local" ? "processing" : "waiting_for_resources",
    );
    if (row) await notifyPotential(db, row);
    return row;
  }

  renew(job: PotentialRow, runnerId: string, leaseMs: number): Promise<boolean> {
    return renewLease(this.options.db, job.id, runnerId, leaseMs);
  }

  // On the shared path for Slurm: the compute node reads the inputs and writes the results there.
  protected workdirName(job: PotentialRow): string {
    return `potential-${job.id}`;
  }

  /** generate-potential (GAFF/GAFF2 parameters, AM1-BCC charges, minimisation) on the structure,
   * or validate-topology on the uploaded .top against it. Neither is followed after a restart (a
   * generation is submitted anew), so no scheduler job id. */
  protected async prepare(job: PotentialRow, run: EngineRun): Promise<EngineCall> {
    const { workdir } = run;
    const structure = await this.structureFile(job, workdir);
    const call = {
      jobName: `polyforge-potential-${job.id}`,
      // Stopped being ours without a cancel here: cancelled or deleted through another server.
      wasCancelled: async () => {
        const row = await findPotentialById(this.options.db, job.id);
        return !row || row.status === "cancelled";
      },
    };
    if (job.origin === "generate") return { ...call, ...this.generation(job, run, structure) };
    // The .top keeps the user's file name (made safe), so the engine's messages name it.
    const topology = join(workdir, safeTopologyName(job.file ?? "topology.top"));
    await this.options.store.download(String(job.input.topology_key), topology);
    return { ...call, command: "validate-topology", input: { topology_file: topology, structure_file: structure } };
  }

  /** generate-potential's input, and its progress and queue state written onto the row: progress at
   * most every interval whatever the queue state, queue states at once. */
  private generation(job: PotentialRow, { runnerId, progress }: EngineRun, structure: string) {
    const parameters = job.parameters ?? {};
    return {
      command: "generate-potential",
      input: {
        structure_file: structure,
        force_field: parameters.force_field,
        charge: parameters.charge,
        minimization_steps: parameters.minimization_steps,
        system: { name: job.name, sanitized_name: job.sanitizedName || "potential" },
      },
      onProgress: (stage: string, percent: number) =>
        progress.progress("processing", () =>
          this.update(job, runnerId, { status: "processing", progress: Math.max(0, Math.min(100, percent)), stage }),
        ),
      onQueueState: ({ waiting, reason }: QueueState) =>
        progress.now(() =>
          this.update(job, runnerId, {
            status: waiting ? "waiting_for_resources" : "processing",
            schedulerReason: reason,
            ...(waiting ? { progress: 0, stage: null } : {}),
          }),
        ),
    };
  }

  /** The structure the potential parametrises, copied into the work directory under its format's
   * extension (the engine reads the format from it). */
  private async structureFile(job: PotentialRow, workdir: string): Promise<string> {
    const extension = fileExtension(String(job.input.file ?? "")) || ".pdb";
    const local = join(workdir, `structure${extension}`);
    await this.options.store.download(String(job.input.key), local);
    return local;
  }

  protected interpret(job: PotentialRow, outcome: ExecutorOutcome, { workdir }: EngineRun): Promise<Outcome> {
    return job.origin === "generate" ? this.generated(job, outcome, workdir) : Promise.resolve(validated(outcome));
  }

  /** A generation's answer; its files are kept. */
  private async generated(job: PotentialRow, outcome: ExecutorOutcome, workdir: string): Promise<Outcome> {
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

  protected async record(job: PotentialRow, { runnerId }: EngineRun, outcome: Outcome): Promise<void> {
    await this.update(job, runnerId, { ...outcome, ...endedJob(), schedulerReason: null });
  }

  protected failed(job: PotentialRow): Outcome {
    const message =
      job.origin === "generate"
        ? "The potential could not be generated. Try again."
        : "The topology could not be checked.";
    return {
      status: "error",
      errorCode: "PROCESSING_FAILED",
      errorMessage: message,
      ...(job.origin === "upload" ? { problem: { code: "PROCESSING_FAILED", message, line: null } } : {}),
    };
  }

  protected async release(job: PotentialRow, { runnerId }: EngineRun): Promise<void> {
    await this.update(job, runnerId, {
      status: job.origin === "generate" ? "waiting_for_resources" : "pending_validation",
      progress: 0,
      stage: null,
      leaseOwner: null,
      leaseExpiresAt: null,
    });
  }
}

/** validate-topology's answer: the .top's summary, or the problem it has. */
function validated(outcome: ExecutorOutcome): Outcome {
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
