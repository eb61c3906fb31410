import type { FastifyBaseLogger } from "fastify";
import type { SlurmClient, SlurmJobState } from "./client";

/** Called after each poll with the job's state, or undefined when Slurm has no record of it. */
export type StateListener = (state: SlurmJobState | undefined) => void;

/**
 * Polls the states of every job being followed in one call to Slurm, at most once per `pollMs`
 * (ISSUE 26: not one call per job), and hands each follower its job's state.
 */
export class SlurmMonitor {
  private readonly listeners = new Map<string, Set<StateListener>>();
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private lastPoll = 0;
  private closed = false;

  constructor(
    private readonly client: SlurmClient,
    private readonly pollMs: number,
    private readonly logger: FastifyBaseLogger,
  ) {}

  /** Follows a job until the returned function is called. */
  watch(id: string, listener: StateListener): () => void {
    let set = this.listeners.get(id);
    if (!set) {
      set = new Set();
      this.listeners.set(id, set);
    }
    set.add(listener);
    this.schedule();
    return () => {
      const current = this.listeners.get(id);
      current?.delete(listener);
      if (current?.size === 0) this.listeners.delete(id);
    };
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }

  /** The next poll: a pollMs after the last one, so the rate stays bounded however many jobs. */
  private schedule(): void {
    if (this.closed || this.timer || this.polling || this.listeners.size === 0) return;
    const wait = Math.max(0, this.lastPoll + this.pollMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.polling = this.poll().finally(() => {
        this.polling = undefined;
        this.schedule();
      });
    }, wait);
  }

  private async poll(): Promise<void> {
    const ids = [...this.listeners.keys()];
    this.lastPoll = Date.now();
    let states: Map<string, SlurmJobState>;
    try {
      states = await this.client.states(ids);
    } catch (err) {
      // Slurm unreachable: the jobs are not lost, the next poll asks again.
      this.logger.warn({ err }, "polling Slurm failed");
      return;
    }
    for (const id of ids) {
      for (const listener of this.listeners.get(id) ?? []) listener(states.get(id));
    }
  }
}
