import type { JobResources } from "./resources";

/** A batch job as the executor submits it: a script run in `workdir` on a compute node. */
export interface SubmitSpec {
  name: string;
  workdir: string;
  /** The batch script's path (written in `workdir`; slurmrestd is sent its text). */
  scriptPath: string;
  script: string;
  stdoutPath: string;
  stderrPath: string;
  resources: JobResources;
}

/** One job as Slurm reports it: its state (PENDING, RUNNING, COMPLETED, …) and Slurm's reason. */
export interface SlurmJobState {
  id: string;
  state: string;
  reason: string | null;
  /** "exit:signal" where Slurm tells it (sacct), else null. */
  exitCode: string | null;
}

/** The two ways of talking to Slurm: the command-line tools or slurmrestd. */
export interface SlurmClient {
  readonly kind: "cli" | "rest";
  /** Submits the batch job; answers Slurm's job id. */
  submit(spec: SubmitSpec): Promise<string>;
  /** The states of these jobs, in one call; a job Slurm has no record of is missing from the map. */
  states(ids: readonly string[]): Promise<Map<string, SlurmJobState>>;
  /** scancel; a job that already ended is no error. */
  cancel(id: string): Promise<void>;
  /** The newest job of this name Slurm knows (queued, running or ended), or undefined: how a
   * runner taking a job back finds one its predecessor submitted but died before recording. */
  findByName(name: string): Promise<SlurmJobState | undefined>;
}

/** The newest of these jobs (Slurm's ids grow), or undefined. */
export function newestJob(jobs: Iterable<SlurmJobState>): SlurmJobState | undefined {
  let newest: SlurmJobState | undefined;
  for (const job of jobs) if (!newest || Number(job.id) > Number(newest.id)) newest = job;
  return newest;
}

/** Slurm's states, grouped by what they mean for an execution. */
const WAITING_STATES = new Set(["PENDING", "CONFIGURING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED", "RESV_DEL_HOLD"]);
const RUNNING_STATES = new Set(["RUNNING", "COMPLETING", "STAGE_OUT", "SUSPENDED", "SIGNALING", "RESIZING", "STOPPED"]);

export type StateGroup = "waiting" | "running" | "completed" | "cancelled" | "failed";

export function stateGroup(state: string): StateGroup {
  const base = state.split(/[\s+]/)[0]?.toUpperCase() ?? "";
  if (WAITING_STATES.has(base)) return "waiting";
  if (RUNNING_STATES.has(base)) return "running";
  if (base === "COMPLETED") return "completed";
  if (base === "CANCELLED") return "cancelled";
  return "failed"; // FAILED, TIMEOUT, OUT_OF_MEMORY, NODE_FAIL, BOOT_FAIL, DEADLINE, PREEMPTED, …
}

/** Slurm's "None" reason means none. */
export function cleanReason(reason: string | null | undefined): string | null {
  const text = reason?.trim();
  return text && text !== "None" && text !== "(null)" ? text : null;
}
