import { readFile } from "node:fs/promises";
import { cleanReason, newestJob, type SlurmClient, type SlurmJobState, type SubmitSpec } from "./client";
import type { SlurmSettings } from "./settings";

/** slurmrestd's API of Slurm 22.05 (the controller's part; accounting needs a slurmdbd). */
const API = "slurm/v0.0.38";
const REQUEST_TIMEOUT_MS = 30_000;

/** Slurm's time formats → minutes (slurmrestd takes whole minutes; seconds round up). */
export function timeToMinutes(time: string): number {
  const [days, clock] = time.includes("-") ? time.split("-", 2) : ["0", time];
  const parts = (clock ?? "0").split(":").map(Number);
  let seconds: number;
  if (time.includes("-")) {
    const [h = 0, m = 0, s = 0] = parts;
    seconds = h * 3600 + m * 60 + s;
  } else if (parts.length === 3) {
    const [h = 0, m = 0, s = 0] = parts;
    seconds = h * 3600 + m * 60 + s;
  } else {
    const [m = 0, s = 0] = parts;
    seconds = m * 60 + s;
  }
  return Number(days) * 24 * 60 + Math.max(1, Math.ceil(seconds / 60));
}

/** 4096, 4096M, 8G → megabytes. */
export function memoryToMegabytes(memory: string): number {
  const match = /^(\d+)([KMGT]?)$/i.exec(memory);
  if (!match) throw new Error(`not a memory size: ${memory}`);
  const value = Number(match[1]);
  const unit = (match[2] ?? "").toUpperCase();
  const factor = { K: 1 / 1024, "": 1, M: 1, G: 1024, T: 1024 * 1024 }[unit] ?? 1;
  return Math.max(1, Math.ceil(value * factor));
}

interface RestJob {
  job_id: number;
  name?: string;
  job_state: string;
  state_reason?: string;
  exit_code?: number;
}

/** Slurm through slurmrestd with a JWT (X-SLURM-USER-NAME / X-SLURM-USER-TOKEN): one GET of all
 * jobs answers every poll. Without slurmdbd it knows a job until MinJobAge after its end. */
export class SlurmRestClient implements SlurmClient {
  readonly kind = "rest";

  constructor(private readonly rest: NonNullable<SlurmSettings["rest"]>) {}

  async submit(spec: SubmitSpec): Promise<string> {
    const r = spec.resources;
    const body = {
      script: spec.script,
      job: {
        name: spec.name,
        current_working_directory: spec.workdir,
        standard_output: spec.stdoutPath,
        standard_error: spec.stderrPath,
        nodes: 1,
        tasks: 1,
        cpus_per_task: r.cpus,
        memory_per_node: memoryToMegabytes(r.memory),
        time_limit: timeToMinutes(r.time),
        // The job's whole environment: nothing of the server's settings goes to the compute node.
        environment: { PATH: "/usr/local/bin:/usr/bin:/bin" },
        ...(r.partition ? { partition: r.partition } : {}),
        ...(r.account ? { account: r.account } : {}),
        ...(r.qos ? { qos: r.qos } : {}),
        ...(r.gpus > 0 ? { gpus: String(r.gpus) } : {}),
      },
    };
    const answer = (await this.call("POST", "job/submit", body)) as { job_id?: number };
    if (typeof answer.job_id !== "number") throw new Error("slurmrestd answered no job id");
    return String(answer.job_id);
  }

  async states(ids: readonly string[]): Promise<Map<string, SlurmJobState>> {
    const found = new Map<string, SlurmJobState>();
    if (ids.length === 0) return found;
    for (const job of await this.jobs()) if (ids.includes(job.id)) found.set(job.id, job);
    return found;
  }

  async findByName(name: string): Promise<SlurmJobState | undefined> {
    return newestJob((await this.jobs()).filter((job) => job.name === name));
  }

  /** Every job the controller knows (without slurmdbd: until MinJobAge after its end). */
  private async jobs(): Promise<Array<SlurmJobState & { name: string | undefined }>> {
    const answer = (await this.call("GET", "jobs")) as { jobs?: RestJob[] };
    return (answer.jobs ?? []).map((job) => ({
      id: String(job.job_id),
      name: job.name,
      state: job.job_state,
      reason: cleanReason(job.state_reason),
      exitCode: job.exit_code === undefined ? null : String(job.exit_code),
    }));
  }

  async cancel(id: string): Promise<void> {
    await this.call("DELETE", `job/${id}`).catch((error: unknown) => {
      // Already ended: nothing to cancel.
      if (/already completing or completed|Invalid job id/i.test(String(error))) return undefined;
      throw error;
    });
  }

  private async token(): Promise<string> {
    if (this.rest.jwtFile) return (await readFile(this.rest.jwtFile, "utf8")).trim();
    return this.rest.jwt ?? "";
  }

  private async call(method: string, path: string, body?: unknown): Promise<unknown> {
    const response = await fetch(`${this.rest.url}/${API}/${path}`, {
      method,
      headers: {
        "X-SLURM-USER-NAME": this.rest.user,
        "X-SLURM-USER-TOKEN": await this.token(),
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await response.text();
    let parsed: { errors?: Array<{ error?: string; description?: string }> } & Record<string, unknown> = {};
    try {
      parsed = JSON.parse(text);
    } catch {
      // An authentication failure answers plain text.
    }
    const errors = (parsed.errors ?? []).map((e) => e.description || e.error).filter(Boolean);
    if (!response.ok || errors.length > 0) {
      throw new Error(
        `slurmrestd ${method} ${path} answered ${response.status}: ${errors.join("; ") || text.slice(0, 200)}`,
      );
    }
    return parsed;
  }
}
