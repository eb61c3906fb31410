import { rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { FastifyBaseLogger } from "fastify";
import type { ClaimRequest } from "./claim";
import { type EngineExecutor, type ExecutorOutcome, type ExecutorRunOptions, LocalExecutor } from "./executor";
import { ProgressWriter } from "./progress";
import type { JobContext, JobQueue } from "./runner";
import { openWorkdir } from "./workdirs";

export interface EngineQueueOptions {
  /** Engine work directories are created under it and removed after each run. */
  workRoot: string;
  logger: FastifyBaseLogger;
  /** Where the engine runs (POLYFORGE_EXECUTOR): here by default, or on Slurm. */
  executor?: EngineExecutor;
}

/** One run of a job, as every step of its queue sees it. */
export interface EngineRun {
  runnerId: string;
  /** Aborted with the runner's StopReason: cancelled, lease lost or shutdown. */
  signal: AbortSignal;
  /** The job's work directory (created before `prepare`). */
  workdir: string;
  /** The run's progress writes (in the "processing" status until a step says otherwise), all
   * landed before the outcome is interpreted. */
  progress: ProgressWriter<string>;
  /** The scheduler's job id: the one the job already had, or the one the executor submitted. */
  schedulerJobId: string | null;
}

/** What `prepare` hands the engine: the command, its input (written to job.json) and the hooks
 * of ExecutorRunOptions the queue follows the run with. */
export type EngineCall = Omit<ExecutorRunOptions, "inputPath" | "workdir" | "signal" | "onProgress"> & {
  input: object;
  onProgress?: ExecutorRunOptions["onProgress"];
};

/**
 * The one run() of every engine job (MDAnalysis AnalysisBase's shape: the base runs, a queue
 * fills in its steps). The base makes the work directory, writes the input, runs the engine
 * through the executor, hands a job stopped by a shutdown back (`release`), records a run that
 * threw as `failed` says, and removes the work directory. A queue supplies how to claim and renew
 * its rows and five steps: `prepare` (the engine call, or undefined when the job ended without
 * one), `interpret` (the engine's outcome as the result to record), `record`, `failed` and
 * `release`.
 */
export abstract class EngineJobQueue<Job extends { id: string; attempts: number }, Result> implements JobQueue<Job> {
  protected readonly executor: EngineExecutor;
  /** Names the jobs in log lines ("system processing", "structure job"). */
  protected abstract readonly kind: string;
  /** The log field that carries a job's id. */
  protected abstract readonly logKey: string;
  /** A job a scheduler runs goes on while this server stops, and a restarted server follows it
   * again: its work directory stays where the executor says so. Others always lose theirs. */
  protected readonly followedAfterRestart: boolean = false;

  constructor(private readonly engineOptions: EngineQueueOptions) {
    this.executor = engineOptions.executor ?? new LocalExecutor(1);
  }

  abstract claim(request: ClaimRequest): Promise<Job | undefined>;
  abstract renew(job: Job, runnerId: string, leaseMs: number): Promise<boolean>;
  /** The work directory's name under the work root (one per job). */
  protected abstract workdirName(job: Job): string;
  protected abstract prepare(job: Job, run: EngineRun): Promise<EngineCall | undefined>;
  protected abstract interpret(job: Job, outcome: ExecutorOutcome, run: EngineRun): Promise<Result>;
  /** Writes the result if the job is still this runner's, and tells its owner. */
  protected abstract record(job: Job, run: EngineRun, result: Result): Promise<void>;
  /** The result of a run that threw. */
  protected abstract failed(job: Job, error: unknown): Result;
  /** Back to the queue, for this or another runner (shutdown). */
  protected abstract release(job: Job, run: EngineRun): Promise<void>;

  async run(job: Job, { runnerId, signal }: JobContext): Promise<void> {
    const { logger, workRoot } = this.engineOptions;
    const workdir = this.executor.workdirFor(resolve(workRoot), this.workdirName(job), job.attempts);
    const run: EngineRun = {
      runnerId,
      signal,
      workdir,
      progress: new ProgressWriter<string>("processing"),
      schedulerJobId: null,
    };
    try {
      await openWorkdir(this.executor, workdir, runnerId);
      const call = await this.prepare(job, run);
      if (!call) return;
      const outcome = await this.runEngine(call, run);
      if (signal.aborted) {
        // Cancelled or taken back: the row is no longer ours to write. On shutdown, hand it back.
        if (signal.reason === "shutdown") await this.release(job, run);
        return;
      }
      await this.record(job, run, await this.interpret(job, outcome, run));
    } catch (err) {
      logger.error({ err, [this.logKey]: job.id }, `${this.kind} failed`);
      if (signal.aborted) return;
      await this.record(job, run, this.failed(job, err)).catch((recordErr: unknown) =>
        logger.error({ err: recordErr }, `recording a failed ${this.kind} failed`),
      );
    } finally {
      const stopReason = signal.aborted ? signal.reason : undefined;
      if (!this.followedAfterRestart || !this.executor.keepsWorkdir(stopReason)) {
        await rm(workdir, { recursive: true, force: true });
      }
    }
  }

  /**
   * Writes the input (unless the scheduler already has the job, which read it when it was
   * submitted) and runs the engine through the executor; returns once every progress write the
   * run queued has landed.
   */
  private async runEngine(call: EngineCall, run: EngineRun): Promise<ExecutorOutcome> {
    const inputPath = join(run.workdir, "job.json");
    run.schedulerJobId = call.externalId ?? null;
    if (!run.schedulerJobId) await writeFile(inputPath, JSON.stringify(call.input));
    const { onSubmitted } = call;
    const outcome = await this.executor.run({
      ...call,
      inputPath,
      workdir: run.workdir,
      signal: run.signal,
      onProgress: call.onProgress ?? (() => {}),
      // Only a job that records its scheduler id is followed after a restart (the executor asks).
      ...(onSubmitted && {
        onSubmitted: async (id: string) => {
          run.schedulerJobId = id;
          await onSubmitted(id);
        },
      }),
    });
    await run.progress.flushed();
    return outcome;
  }
}
