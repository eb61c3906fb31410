import { join } from "node:path";
import { type EngineOutcome, type EngineRunOptions, runEngine } from "./engine-process";

/** What became of an engine job: the engine's result or error, or (Slurm) cancelled outside PolyForge. */
export type ExecutorOutcome = EngineOutcome | { kind: "cancelled"; message: string };

/** Where the job waits: `waiting` with the scheduler's reason (Resources, Priority…), or started. */
export interface QueueState {
  waiting: boolean;
  reason: string | null;
}

export interface ExecutorRunOptions extends EngineRunOptions {
  /** The job's name for the scheduler (e.g. polyforge-<execution id>). */
  jobName: string;
  /** The job's input, read for its size (atoms, steps) to size the scheduler's request. */
  input?: unknown;
  /** A job this execution already submitted (a restarted server follows it instead of submitting). */
  externalId?: string | null;
  /** Called once the scheduler took the job, before anything else (so a restart can find it). */
  onSubmitted?(externalId: string): Promise<void>;
  onQueueState?(state: QueueState): void;
  /** Asked when the job stopped being ours without a cancel here: cancelled by another server? */
  wasCancelled?(): Promise<boolean>;
}

/**
 * Runs engine jobs: `local` spawns the engine here (the embedded runner and `polyforge worker`),
 * `slurm` hands each job to a Slurm cluster as a batch job (ARCHITECTURE §7).
 */
export interface EngineExecutor {
  readonly kind: "local" | "slurm";
  /** How many jobs a runner using this executor holds at once. */
  readonly maxJobs: number;
  /** The job's work directory: per attempt here; on the shared path, per job, for Slurm (a
   * restarted server finds the running job's files there). */
  workdirFor(workRoot: string, jobId: string, attempt: number): string;
  /** Whether the work directory must stay after the job stopped for this reason (a Slurm job
   * goes on running while the server restarts). */
  keepsWorkdir(stopReason: unknown): boolean;
  run(options: ExecutorRunOptions): Promise<ExecutorOutcome>;
  close(): Promise<void>;
}

/** The engine as a child process of this server (or worker). */
export class LocalExecutor implements EngineExecutor {
  readonly kind = "local";
  constructor(readonly maxJobs: number) {}
  workdirFor(workRoot: string, jobId: string, attempt: number): string {
    return join(workRoot, `${jobId}-${attempt}`);
  }
  keepsWorkdir(): boolean {
    return false;
  }
  run(options: ExecutorRunOptions): Promise<ExecutorOutcome> {
    return runEngine(options);
  }
  async close(): Promise<void> {}
}
