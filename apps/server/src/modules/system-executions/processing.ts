import { rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { bundleResultPayload, executionStatusForStage, seedOfBundle } from "@polyforge/contracts/engine-results";
import type { ExecutionStatus } from "@polyforge/contracts/enums";
import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import type { PgUpdateSetSource } from "drizzle-orm/pg-core";
import type { FastifyBaseLogger } from "fastify";
import type { Db } from "../../platform/db/database";
import { probeEngine } from "../../platform/engine";
import { publishNotification } from "../../platform/events/notifications";
import { type ClaimRequest, claimJob } from "../../platform/jobs/claim";
import type { ProgressDetail } from "../../platform/jobs/engine-process";
import { type EngineExecutor, type ExecutorOutcome, LocalExecutor } from "../../platform/jobs/executor";
import { ProgressWriter } from "../../platform/jobs/progress";
import { storeResultFiles } from "../../platform/jobs/results";
import type { JobContext, JobQueue } from "../../platform/jobs/runner";
import { endedJob, interruptedTooOften, renewedLease } from "../../platform/jobs/table";
import { openWorkdir } from "../../platform/jobs/workdirs";
import type { FileStore } from "../../platform/storage/file-store";
import { engineJobOfSystem } from "../systems/queries";
import { ACTIVE_STATUSES } from "./repository";
import { type SystemExecutionRow, systemExecutions } from "./schema";

/** A job taken back this many times (its runner kept dying) is given up with an error. */
export const MAX_ATTEMPTS = 3;

export const INTERRUPTED_CODE = "INTERRUPTED";

/** Where an execution's result files live in the file store. */
export function resultKey(executionId: string, name: string): string {
  return `system-executions/${executionId}/${name}`;
}

/** Pushes the execution's status to its owner; `notice` says something happened to the run (taken
 * back after a restart), which the app shows at once. */
export async function notifyStatus(db: Db, row: SystemExecutionRow, notice?: string): Promise<void> {
  await publishNotification(db, row.ownerId, {
    message_type: "system_execution_status_updated",
    system_id: row.systemId,
    execution_id: row.id,
    status: row.status,
    progress: row.progress,
    ...(notice ? { notice } : {}),
  });
}

/** What the owner reads when a runner takes back a job whose runner stopped (issue 23). */
export function takenBackNotice(row: Pick<SystemExecutionRow, "attempts" | "schedulerJobId">): string {
  if (row.schedulerJobId) {
    return "The server following this run on the cluster stopped; another took it over and follows the same cluster job.";
  }
  return `The server running this stopped; processing was taken back and started again from the beginning (attempt ${row.attempts} of ${MAX_ATTEMPTS}).`;
}

/** Added to the notice when an engine of the job still running from before was stopped first. */
export const STALE_ENGINE_NOTICE = "An engine left running from before was stopped first, so only one runs.";

type ExecutionUpdate = PgUpdateSetSource<typeof systemExecutions>;

export interface ProcessingOptions {
  db: Db;
  store: FileStore;
  /** Engine work directories are created under it and removed after each run. */
  workRoot: string;
  logger: FastifyBaseLogger;
  /** The engine command that builds a system (ARCHITECTURE §6). */
  engineCommand?: string;
  /** Where the engine runs (POLYFORGE_EXECUTOR): here by default, or on Slurm. */
  executor?: EngineExecutor;
}

/** The frozen engine job of an execution and where it was written for the engine. */
interface EngineInput {
  engineJob: Record<string, unknown>;
  inputPath: string;
}

/** The queue of system processing jobs: `system_executions` rows run by `build-system`. */
export class SystemProcessingQueue implements JobQueue<SystemExecutionRow> {
  private versions: Promise<Record<string, string | null>> | undefined;
  private readonly executor: EngineExecutor;

  constructor(private readonly options: ProcessingOptions) {
    this.executor = options.executor ?? new LocalExecutor(1);
  }

  async claim(request: ClaimRequest): Promise<SystemExecutionRow | undefined> {
    const { db } = this.options;
    await this.giveUpInterrupted();
    // A job for a scheduler waits (for its resources there) until the scheduler starts it.
    const claimed = this.executor.kind === "local" ? "processing" : "waiting_for_resources";
    // A job already submitted to a scheduler (its runner stopped) keeps its status and progress:
    // the claimer follows it again.
    const job = await claimJob(
      db,
      {
        table: "system_executions",
        waiting: ["waiting_for_resources"],
        active: ["processing", "running"],
        set: sql`
          status = CASE WHEN scheduler_job_id IS NULL THEN ${claimed} ELSE status END,
          progress = CASE WHEN scheduler_job_id IS NULL THEN 0 ELSE progress END,
          stage = CASE WHEN scheduler_job_id IS NULL THEN NULL ELSE stage END,
          simulated_ns = NULL, total_ns = NULL, remaining_seconds = NULL`,
      },
      request,
    );
    if (!job) return undefined;
    let [row] = await db.select().from(systemExecutions).where(eq(systemExecutions.id, job.id));
    if (!row) return undefined;
    if (job.takenBackFrom) {
      // Issue 23: a takeback is visible, not silent: said on the execution and pushed.
      this.options.logger.warn(
        { executionId: row.id, from: job.takenBackFrom, attempt: row.attempts },
        "took back a processing job whose runner stopped",
      );
      const notice = takenBackNotice(row);
      row = (await this.setNotice(row, request.runnerId, notice)) ?? row;
      await notifyStatus(db, row, notice);
      return row;
    }
    await notifyStatus(db, row);
    return row;
  }

  async renew(job: SystemExecutionRow, runnerId: string, leaseMs: number): Promise<boolean> {
    const rows = await this.options.db
      .update(systemExecutions)
      .set(renewedLease(leaseMs))
      .where(this.ours(job.id, runnerId))
      .returning({ id: systemExecutions.id });
    return rows.length > 0;
  }

  async run(job: SystemExecutionRow, { runnerId, signal }: JobContext): Promise<void> {
    const { executor } = this;
    const workdir = executor.workdirFor(resolve(this.options.workRoot), job.id, job.attempts);
    // The scheduler's job id, set once the executor submits it.
    const submitted = { schedulerJobId: job.schedulerJobId };
    try {
      const input = await this.prepareInput(job, runnerId, workdir);
      if (!input) return;
      const outcome = await this.runEngine(job, { runnerId, signal }, workdir, input, submitted);
      if (signal.aborted) {
        // Cancelled or taken back: the row is no longer ours to write. On shutdown, hand it back.
        if (signal.reason === "shutdown") await this.release(job, runnerId, submitted.schedulerJobId);
        return;
      }
      await this.record(job, runnerId, workdir, outcome);
    } catch (err) {
      await this.recordFailure(job, runnerId, signal, err);
    } finally {
      // A scheduler's job goes on while this server stops: its files stay for the next one.
      if (!executor.keepsWorkdir(signal.aborted ? signal.reason : undefined)) {
        await rm(workdir, { recursive: true, force: true });
      }
    }
  }

  /**
   * Writes the system's engine job into the workdir and records the engine versions.
   *
   * Returns the job and its input path, or undefined when the system has no build job (the execution
   * is then finished with INVALID_INPUT).
   */
  private async prepareInput(
    job: SystemExecutionRow,
    runnerId: string,
    workdir: string,
  ): Promise<EngineInput | undefined> {
    const engineJob = await engineJobOfSystem(this.options.db, job.systemId);
    if (!engineJob) {
      await this.finish(job, runnerId, {
        status: "error",
        errorCode: "INVALID_INPUT",
        errorMessage: "The system has no build job; finish it in the polymer builder first.",
      });
      return undefined;
    }
    await openWorkdir(this.executor, workdir, runnerId);
    const inputPath = join(workdir, "job.json");
    // A job the scheduler already has reads the input written when it was submitted.
    if (!job.schedulerJobId) await writeFile(inputPath, JSON.stringify(engineJob));
    const versions = await this.engineVersions();
    await this.update(job, runnerId, { versions });
    return { engineJob, inputPath };
  }

  /**
   * Runs the engine through the executor, writing its progress, queue state and scheduler job id
   * onto the execution as they come; returns once every progress write has landed.
   */
  private async runEngine(
    job: SystemExecutionRow,
    { runnerId, signal }: JobContext,
    workdir: string,
    { engineJob, inputPath }: EngineInput,
    submitted: { schedulerJobId: string | null },
  ): Promise<ExecutorOutcome> {
    const progress = new ProgressWriter<ExecutionStatus>("processing");
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
    const outcome = await this.executor.run({
      command: this.options.engineCommand ?? "build-system",
      inputPath,
      workdir,
      signal,
      onProgress: (stage, percent, detail) => report(executionStatusForStage(stage), percent, stage, detail),
      jobName: `polyforge-${job.id}`,
      onStaleEngineKilled: (pid) => {
        this.options.logger.warn(
          { executionId: job.id, pid },
          "killed a stale engine of the job before starting it again",
        );
        progress.now(() => this.addStaleEngineNotice(job, runnerId), "processing");
      },
      input: engineJob,
      externalId: submitted.schedulerJobId,
      onSubmitted: async (id) => {
        submitted.schedulerJobId = id;
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
      wasCancelled: async () => (await this.statusOf(job.id)) === "cancelled",
    });
    await progress.flushed();
    return outcome;
  }

  /** Logs a run that threw and, unless it was cancelled or taken back, finishes it with PROCESSING_FAILED. */
  private async recordFailure(job: SystemExecutionRow, runnerId: string, signal: AbortSignal, err: unknown) {
    const { logger } = this.options;
    logger.error({ err, executionId: job.id }, "system processing failed");
    if (signal.aborted) return;
    await this.finish(job, runnerId, {
      status: "error",
      errorCode: "PROCESSING_FAILED",
      errorMessage: `The results could not be processed: ${err instanceof Error ? err.message : String(err)}`,
    }).catch((finishErr: unknown) => logger.error({ err: finishErr }, "recording a failed execution failed"));
  }

  /** Says on the execution what happened to the run, and pushes it to the owner. */
  private async setNotice(
    job: SystemExecutionRow,
    runnerId: string,
    notice: string,
  ): Promise<SystemExecutionRow | undefined> {
    const [row] = await this.options.db
      .update(systemExecutions)
      .set({ notice, updatedAt: sql`now()` })
      .where(this.ours(job.id, runnerId))
      .returning();
    return row;
  }

  private async addStaleEngineNotice(job: SystemExecutionRow, runnerId: string): Promise<void> {
    const current = await this.noticeOf(job.id);
    const notice = current ? `${current} ${STALE_ENGINE_NOTICE}` : STALE_ENGINE_NOTICE;
    const row = await this.setNotice(job, runnerId, notice);
    if (row) await notifyStatus(this.options.db, row, notice);
  }

  private async noticeOf(id: string): Promise<string | null> {
    const [row] = await this.options.db
      .select({ notice: systemExecutions.notice })
      .from(systemExecutions)
      .where(eq(systemExecutions.id, id));
    return row?.notice ?? null;
  }

  private async statusOf(id: string): Promise<ExecutionStatus | undefined> {
    const [row] = await this.options.db
      .select({ status: systemExecutions.status })
      .from(systemExecutions)
      .where(eq(systemExecutions.id, id));
    return row?.status;
  }

  /** Stores the result files and completes the execution, or records the engine's error. */
  private async record(job: SystemExecutionRow, runnerId: string, workdir: string, outcome: ExecutorOutcome) {
    if (outcome.kind === "cancelled") {
      // Cancelled on the cluster (an administrator's scancel), not here.
      await this.finish(job, runnerId, { status: "cancelled", errorMessage: outcome.message });
      return;
    }
    if (outcome.kind === "error") {
      await this.finish(job, runnerId, { status: "error", errorCode: outcome.code, errorMessage: outcome.message });
      return;
    }
    // The bundle and the files the detail page shows (contracts RESULT_VIEWER_FILES), by name.
    const resultFiles = await storeResultFiles(this.options.store, workdir, outcome.payload, (name) =>
      resultKey(job.id, name),
    );
    await this.finish(job, runnerId, {
      status: "completed",
      progress: 100,
      seed: seedOf(outcome.payload),
      resultFiles,
    });
  }

  private async finish(
    job: SystemExecutionRow,
    runnerId: string,
    values: ExecutionUpdate & { status: ExecutionStatus },
  ): Promise<void> {
    await this.update(job, runnerId, {
      ...values,
      leaseOwner: null,
      leaseExpiresAt: null,
      finishedAt: sql`now()`,
    });
  }

  /** Writes the row while this runner still holds the job; a status change is pushed to the owner. */
  private async update(job: SystemExecutionRow, runnerId: string, values: ExecutionUpdate): Promise<void> {
    const { db } = this.options;
    const [row] = await db
      .update(systemExecutions)
      .set({ ...values, updatedAt: sql`now()` })
      .where(this.ours(job.id, runnerId))
      .returning();
    if (row && (values.status !== undefined || values.progress !== undefined)) await notifyStatus(db, row);
  }

  /** Back to the queue, for this or another runner (shutdown). A job on a scheduler keeps its
   * status and goes on there; its lease lapses now, so the next runner follows it at once. */
  private async release(job: SystemExecutionRow, runnerId: string, schedulerJobId: string | null): Promise<void> {
    if (schedulerJobId) {
      await this.update(job, runnerId, { leaseOwner: null, leaseExpiresAt: sql`now()` });
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

  /** Jobs whose runners died MAX_ATTEMPTS times end in error instead of being retried forever. */
  private async giveUpInterrupted(): Promise<void> {
    const { db } = this.options;
    const rows = await db
      .update(systemExecutions)
      .set({
        status: "error",
        errorCode: INTERRUPTED_CODE,
        errorMessage: `Processing was interrupted ${MAX_ATTEMPTS} times (the server or worker running it stopped). Start it again.`,
        ...endedJob(),
      })
      .where(
        and(
          interruptedTooOften(systemExecutions, ["processing", "running"], MAX_ATTEMPTS),
          // A scheduler's job outlives its runners; a job the scheduler lost ends on its own.
          isNull(systemExecutions.schedulerJobId),
        ),
      )
      .returning();
    for (const row of rows) await notifyStatus(db, row);
  }

  private ours(id: string, runnerId: string) {
    return and(
      eq(systemExecutions.id, id),
      eq(systemExecutions.leaseOwner, runnerId),
      inArray(systemExecutions.status, ACTIVE_STATUSES),
    );
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
