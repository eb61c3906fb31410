import type { FastifyBaseLogger } from "fastify";
import type { ClaimRequest } from "./claim";
import { markRunnerLive, newRunnerId } from "./liveness";

/** Why a running job was stopped: the user cancelled it, another runner took its lease back (or it
 * vanished), or this runner is shutting down and hands the job back. */
export type StopReason = "cancelled" | "lease_lost" | "shutdown";

export interface JobContext {
  runnerId: string;
  /** Aborted with a StopReason as its reason. */
  signal: AbortSignal;
}

/**
 * A kind of job kept in the database (ARCHITECTURE §7). `claim` must be atomic across runners,
 * take back jobs whose lease expired and share the slots fairly: platform/jobs/claim.ts's
 * claimJob does all three.
 */
export interface JobQueue<Job extends { id: string }> {
  claim(request: ClaimRequest): Promise<Job | undefined>;
  /** Extends the lease; false when the job is no longer this runner's (cancelled, taken back). */
  renew(job: Job, runnerId: string, leaseMs: number): Promise<boolean>;
  /** Does the work; must settle soon after `context.signal` aborts. */
  run(job: Job, context: JobContext): Promise<void>;
}

export interface RunnerOptions {
  maxJobs: number;
  /** The share (0–1] of the slots one user's jobs may hold (POLYFORGE_USER_JOB_SHARE): at most
   * that share rounded down, at least one slot. Unset: every slot. */
  userShare?: number;
  leaseMs?: number;
  heartbeatMs?: number;
  pollMs?: number;
  logger: FastifyBaseLogger;
}

const DEFAULT_LEASE_MS = 30_000;
const DEFAULT_HEARTBEAT_MS = 5_000;
const DEFAULT_POLL_MS = 2_000;

/** What a route does with a runner: wake it for a job it queued, stop a job it cancelled. */
export type RunnerHandle = Pick<JobRunner<{ id: string }>, "wake" | "cancel">;

/**
 * Runs at most `maxJobs` jobs of one queue at a time: polls for work (and on `wake()`), holds each
 * job's lease with a heartbeat, and stops a job when it is cancelled or its lease is lost.
 */
export class JobRunner<Job extends { id: string }> {
  readonly runnerId = newRunnerId();
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private readonly leaseMs: number;
  private readonly heartbeatMs: number;
  private readonly pollMs: number;
  /** How many of the slots one user's jobs may hold. */
  readonly userSlots: number;
  private pollTimer: NodeJS.Timeout | undefined;
  private filling: Promise<void> | undefined;
  private refillRequested = false;
  private stopped = true;

  constructor(
    private readonly queue: JobQueue<Job>,
    private readonly options: RunnerOptions,
  ) {
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    this.pollMs = options.pollMs ?? DEFAULT_POLL_MS;
    this.userSlots = Math.max(1, Math.floor((options.userShare ?? 1) * options.maxJobs + 1e-9));
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    markRunnerLive(this.runnerId, true);
    this.pollTimer = setInterval(() => this.wake(), this.pollMs);
    this.wake();
  }

  /** Looks for work now (e.g. right after a job was queued) instead of at the next poll. */
  wake(): void {
    if (this.stopped) return;
    if (this.filling) {
      this.refillRequested = true;
      return;
    }
    this.filling = this.fill()
      .catch((err: unknown) => this.options.logger.error({ err }, "claiming jobs failed"))
      .finally(() => {
        this.filling = undefined;
        if (this.refillRequested) {
          this.refillRequested = false;
          this.wake();
        }
      });
  }

  /** Stops a job this runner holds (the caller has already recorded the cancellation). */
  cancel(jobId: string): void {
    this.running.get(jobId)?.controller.abort("cancelled" satisfies StopReason);
  }

  /** How many jobs this runner holds right now. */
  get activeJobs(): number {
    return this.running.size;
  }

  /** Stops claiming, stops the running jobs (they hand their jobs back) and waits for them. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.pollTimer);
    await this.filling;
    for (const { controller } of this.running.values()) controller.abort("shutdown" satisfies StopReason);
    await Promise.all([...this.running.values()].map(({ done }) => done));
    markRunnerLive(this.runnerId, false);
  }

  private async fill(): Promise<void> {
    while (!this.stopped && this.running.size < this.options.maxJobs) {
      const job = await this.queue.claim({
        runnerId: this.runnerId,
        leaseMs: this.leaseMs,
        userSlots: this.userSlots,
      });
      if (!job) return;
      this.launch(job);
    }
  }

  private launch(job: Job): void {
    const controller = new AbortController();
    const heartbeat = setInterval(() => {
      this.queue.renew(job, this.runnerId, this.leaseMs).then(
        (stillOurs) => {
          if (!stillOurs) controller.abort(this.stopped ? "shutdown" : ("lease_lost" satisfies StopReason));
        },
        (err: unknown) => this.options.logger.warn({ err, jobId: job.id }, "renewing a job lease failed"),
      );
    }, this.heartbeatMs);
    const done = this.queue
      .run(job, { runnerId: this.runnerId, signal: controller.signal })
      .catch((err: unknown) => this.options.logger.error({ err, jobId: job.id }, "job failed"))
      .finally(() => {
        clearInterval(heartbeat);
        this.running.delete(job.id);
        this.wake();
      });
    this.running.set(job.id, { controller, done });
  }
}
