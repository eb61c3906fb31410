/** Progress is written (and pushed) at most this often within a status; other writes go out at once. */
export const PROGRESS_INTERVAL_MS = 2_000;

/**
 * Coalesces a job's writes of the engine's progress lines: progress at most every
 * PROGRESS_INTERVAL_MS while the job's status stays the same, a new status at once. Writes go out
 * in order, one at a time; a failed one is dropped (the next carries the news).
 */
export class ProgressWriter<Status> {
  private lastWrite = 0;
  private pending: Promise<unknown> = Promise.resolve();

  constructor(private status: Status) {}

  /** Queues `write` of progress in `status`, unless progress in that status went out too recently. */
  progress(status: Status, write: () => Promise<unknown>): void {
    const now = Date.now();
    if (status === this.status && now - this.lastWrite < PROGRESS_INTERVAL_MS) return;
    this.status = status;
    this.lastWrite = now;
    this.queue(write);
  }

  /** Queues `write` at once (a scheduler's queue state, a notice), in order with the progress. With
   * `status`, the job is now in that status and its progress waits an interval from here. */
  now(write: () => Promise<unknown>, status?: Status): void {
    if (status !== undefined) {
      this.status = status;
      this.lastWrite = Date.now();
    }
    this.queue(write);
  }

  /** Settles once every queued write has. */
  flushed(): Promise<unknown> {
    return this.pending;
  }

  private queue(write: () => Promise<unknown>): void {
    this.pending = this.pending.then(write).catch(() => undefined);
  }
}
