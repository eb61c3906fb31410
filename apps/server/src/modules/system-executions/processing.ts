import { bundleResultPayload, executionStatusForStage, seedOfBundle } from "@polyforge/contracts/engine-results";
import type { ExecutionStatus } from "@polyforge/contracts/enums";
import type { Db } from "../../platform/db/database";
import { probeEngine } from "../../platform/engine";
import type { ClaimRequest } from "../../platform/jobs/claim";
import type { ProgressDetail } from "../../platform/jobs/engine-process";
import {
  type EngineCall,
  EngineJobQueue,
  type EngineQueueOptions,
  type EngineRun,
} from "../../platform/jobs/engine-queue";
import type { ExecutorOutcome } from "../../platform/jobs/executor";
import { storeResultFiles } from "../../platform/jobs/results";
import { endedJob, lapsedLease } from "../../platform/jobs/table";
import type { FileStore } from "../../platform/storage/file-store";
import { engineJobOfSystem } from "../systems/queries";
import {
  claimExecution,
  type ExecutionUpdate,
  giveUpInterrupted,
  noticeOf,
  notifyStatus,
  renewExecutionLease,
  setNotice,
  statusOf,
  updateHeldExecution,
} from "./repository";
import type { SystemExecutionRow } from "./schema";

/** A job taken back this many times (its runner kept dying) is given up with an error. */
export const MAX_ATTEMPTS = 3;

export const INTERRUPTED_CODE = "INTERRUPTED";

/** Where an execution's result files live in the file store. */
export function resultKey(executionId: string, name: string): string {
  return `system-executions/${executionId}/${name}`;
}

/** What the owner reads when a runner takes back a job whose runner stopped. */
export function takenBackNotice(row: Pick<SystemExecutionRow, "attempts" | "schedulerJobId">): string {
  if (row.schedulerJobId) {
    return "The server following this run on the cluster stopped; another took it over and follows the same cluster job.";
  }
  return `The server running this stopped; processing was taken back and started again from the beginning (attempt ${row.attempts} of ${MAX_ATTEMPTS}).`;
}

/** Added to the notice when an engine of the job still running from before was stopped first. */
export const STALE_ENGINE_NOTICE = "An engine left running from before was stopped first, so only one runs.";

type FinishedExecution = ExecutionUpdate & { status: ExecutionStatus };

export interface ProcessingOptions extends EngineQueueOptions {
  db: Db;
  store: FileStore;
  /** The engine command that builds a system (ARCHITECTURE §6). */
  engineCommand?: string;
}

/** The queue of system processing jobs: `system_executions` rows run by `build-system`. */
export class SystemProcessingQueue extends EngineJobQueue<SystemExecutionRow, FinishedExecution> {
  protected readonly kind = "system processing";
  protected readonly logKey = "executionId";
  // A scheduler's job goes on while this server stops: its files stay for the next one.
  protected override readonly followedAfterRestart = true;
  private versions: Promise<Record<string, string | null>> | undefined;

  constructor(private readonly options: ProcessingOptions) {
    super(options);
  }

  async claim(request: ClaimRequest): Promise<SystemExecutionRow | undefined> {
    const { db } = this.options;
    await this.giveUpInterrupted();
    // A job for a scheduler waits (for its resources there) until the scheduler starts it.
    const claimed = await claimExecution(
      db,
      request,
      this.executor.kind === "local" ? "processing" : "waiting_for_resources",
    );
    if (!claimed) return undefined;
    let { row } = claimed;
    if (claimed.takenBackFrom) {
      // A takeback is visible, not silent: said on the execution and pushed.
      this.options.logger.warn(
        { executionId: row.id, from: claimed.takenBackFrom, attempt: row.attempts },
        "took back a processing job whose runner stopped",
      );
      const notice = takenBackNotice(row);
      row = (await setNotice(db, row.id, request.runnerId, notice)) ?? row;
      await notifyStatus(db, row, notice);
      return row;
    }
    await notifyStatus(db, row);
    return row;
  }

  renew(job: SystemExecutionRow, runnerId: string, leaseMs: number): Promise<boolean> {
    return renewExecutionLease(this.options.db, job.id, runnerId, leaseMs);
  }

  protected workdirName(job: SystemExecutionRow): string {
    return job.id;
  }

  /**
   * The system's engine job, with the engine versions recorded, and the hooks that write the run's
   * progress, queue state and scheduler job id onto the execution as they come. Undefined when the
   * system has no build job (the execution is then finished with INVALID_INPUT).
   */
  protected async prepare(job: SystemExecutionRow, run: EngineRun): Promise<EngineCall | undefined> {
    const { runnerId, progress } = run;
    const engineJob = await engineJobOfSystem(this.options.db, job.systemId);
    if (!engineJob) {
      await this.record(job, run, {
        status: "error",
        errorCode: "INVALID_INPUT",
        errorMessage: "The system has no build job; finish it in the polymer builder first.",
      });
      return undefined;
    }
    await this.update(job, runnerId, { versions: await this.engineVersions() });
    const report = (status: ExecutionStatus, percent: number, stage: string, detail?: ProgressDetail) =>
      progress.progress(status, () =>
        this.update(job, runnerId, {
          status,
          progress: percent,
          stage,
          simulatedNs: detail?.simulatedNs ?? null,
          totalNs: detail?.totalNs ?? null,
          remainingSeconds: detail?.remainingSeconds ?? null,
        }),
      );
    return {
      command: this.options.engineCommand ?? "build-system",
      input: engineJob,
      onProgress: (stage, percent, detail) => report(executionStatusForStage(stage), percent, stage, detail),
      jobName: `polyforge-${job.id}`,
      onStaleEngineKilled: (pid) => {
        this.options.logger.warn(
          { executionId: job.id, pid },
          "killed a stale engine of the job before starting it again",
        );
        progress.now(() => this.addStaleEngineNotice(job, runnerId), "processing");
      },
      // A job the scheduler already has is followed, and reads the input written when it was submitted.
      externalId: job.schedulerJobId,
      onSubmitted: async (id) => {
        await this.update(job, runnerId, { schedulerJobId: id });
      },
      onQueueState: ({ waiting, reason }) =>
        progress.now(
          () =>
            this.update(job, runnerId, {
              status: waiting ? "waiting_for_resources" : "processing",
              schedulerReason: reason,
              ...(waiting ? { progress: 0, stage: null } : {}),
            }),
          waiting ? "waiting_for_resources" : "processing",
        ),
      wasCancelled: async () => (await statusOf(this.options.db, job.id)) === "cancelled",
    };
  }

  /** Stores the result files and completes the execution, or takes the engine's error. */
  protected async interpret(
    job: SystemExecutionRow,
    outcome: ExecutorOutcome,
    { workdir }: EngineRun,
  ): Promise<FinishedExecution> {
    // Cancelled on the cluster (an administrator's scancel), not here.
    if (outcome.kind === "cancelled") return { status: "cancelled", errorMessage: outcome.message };
    if (outcome.kind === "error") return { status: "error", errorCode: outcome.code, errorMessage: outcome.message };
    // The bundle and the files the detail page shows (contracts RESULT_VIEWER_FILES), by name.
    const resultFiles = await storeResultFiles(this.options.store, workdir, outcome.payload, (name) =>
      resultKey(job.id, name),
    );
    return { status: "completed", progress: 100, seed: seedOf(outcome.payload), resultFiles };
  }

  protected async record(job: SystemExecutionRow, { runnerId }: EngineRun, result: FinishedExecution): Promise<void> {
    await this.update(job, runnerId, { ...result, ...endedJob() });
  }

  protected failed(_job: SystemExecutionRow, err: unknown): FinishedExecution {
    return {
      status: "error",
      errorCode: "PROCESSING_FAILED",
      errorMessage: `The results could not be processed: ${err instanceof Error ? err.message : String(err)}`,
    };
  }

  /** A job on a scheduler keeps its status and goes on there; its lease lapses now, so the next
   * runner follows it at once. */
  protected async release(job: SystemExecutionRow, { runnerId, schedulerJobId }: EngineRun): Promise<void> {
    if (schedulerJobId) {
      await this.update(job, runnerId, lapsedLease());
      return;
    }
    await this.update(job, runnerId, {
      status: "waiting_for_resources",
      progress: 0,
      stage: null,
      leaseOwner: null,
      leaseExpiresAt: null,
    });
  }

  private async addStaleEngineNotice(job: SystemExecutionRow, runnerId: string): Promise<void> {
    const { db } = this.options;
    const current = await noticeOf(db, job.id);
    const notice = current ? `${current} ${STALE_ENGINE_NOTICE}` : STALE_ENGINE_NOTICE;
    const row = await setNotice(db, job.id, runnerId, notice);
    if (row) await notifyStatus(db, row, notice);
  }

  /** Writes the row while this runner still holds the job; a status change is pushed to the owner. */
  private async update(job: SystemExecutionRow, runnerId: string, values: ExecutionUpdate): Promise<void> {
    const { db } = this.options;
    const row = await updateHeldExecution(db, job.id, runnerId, values);
    if (row && (values.status !== undefined || values.progress !== undefined)) await notifyStatus(db, row);
  }

  /** Jobs whose runners died MAX_ATTEMPTS times end in error instead of being retried forever. */
  private async giveUpInterrupted(): Promise<void> {
    const { db } = this.options;
    const rows = await giveUpInterrupted(db, MAX_ATTEMPTS, {
      errorCode: INTERRUPTED_CODE,
      errorMessage: `Processing was interrupted ${MAX_ATTEMPTS} times (the server or worker running it stopped). Start it again.`,
    });
    for (const row of rows) await notifyStatus(db, row);
  }

  private engineVersions(): Promise<Record<string, string | null>> {
    this.versions ??= probeEngine().then((status) => (status.found ? status.tools : {}));
    return this.versions;
  }
}

/** The seed the engine used (ARCHITECTURE §5: −1 means it drew one). */
function seedOf(payload: Record<string, unknown>): number | null {
  return seedOfBundle(bundleResultPayload.parse(payload));
}
