import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { cleanReason, newestJob, type SlurmClient, type SlurmJobState, type SubmitSpec } from "./client";

const execFileAsync = promisify(execFile);
/** A Slurm command that does not answer within this time failed (the controller is unreachable). */
const COMMAND_TIMEOUT_MS = 30_000;

async function run(command: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await execFileAsync(command, args, { timeout: COMMAND_TIMEOUT_MS, maxBuffer: 16 << 20 });
    return stdout;
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? "").trim();
    throw new SlurmCommandError(`${command} failed: ${stderr || (error as Error).message}`, stderr);
  }
}

export class SlurmCommandError extends Error {
  override name = "SlurmCommandError";
  constructor(
    message: string,
    readonly stderr: string,
  ) {
    super(message);
  }
}

/** sbatch's options for a job's resources. */
export function sbatchOptions(spec: SubmitSpec): string[] {
  const { resources: r } = spec;
  return [
    "--parsable",
    // Only SLURM_* variables go along: the server's settings (database URL, keys) stay on the server.
    "--export=NIL",
    `--job-name=${spec.name}`,
    `--chdir=${spec.workdir}`,
    `--output=${spec.stdoutPath}`,
    `--error=${spec.stderrPath}`,
    "--nodes=1",
    "--ntasks=1",
    `--cpus-per-task=${r.cpus}`,
    `--mem=${r.memory}`,
    `--time=${r.time}`,
    ...(r.partition ? [`--partition=${r.partition}`] : []),
    ...(r.account ? [`--account=${r.account}`] : []),
    ...(r.qos ? [`--qos=${r.qos}`] : []),
    ...(r.gpus > 0 ? [`--gpus=${r.gpus}`] : []),
  ];
}

/** Slurm through its command-line tools: sbatch, squeue (live jobs), sacct -c (the job-completion
 * log, for jobs squeue has forgotten) and scancel. */
export class SlurmCliClient implements SlurmClient {
  readonly kind = "cli";

  async submit(spec: SubmitSpec): Promise<string> {
    const out = await run("sbatch", [...sbatchOptions(spec), spec.scriptPath]);
    const id = out.trim().split(";")[0] ?? "";
    if (!/^\d+$/.test(id)) throw new Error(`sbatch answered no job id: ${out.trim()}`);
    return id;
  }

  async states(ids: readonly string[]): Promise<Map<string, SlurmJobState>> {
    const found = new Map<string, SlurmJobState>();
    if (ids.length === 0) return found;
    let listed = "";
    try {
      listed = await run("squeue", ["--noheader", "--states=all", `--jobs=${ids.join(",")}`, "--format=%i|%T|%r"]);
    } catch (error) {
      // squeue refuses a list in which it knows no job at all; sacct is asked below.
      if (!(error instanceof SlurmCommandError && /Invalid job id/i.test(error.stderr))) throw error;
    }
    for (const line of listed.split("\n")) {
      const [id, state, reason] = line.trim().split("|");
      if (id && state && ids.includes(id)) found.set(id, { id, state, reason: cleanReason(reason), exitCode: null });
    }
    const forgotten = ids.filter((id) => !found.has(id));
    if (forgotten.length > 0) {
      for (const state of await this.completed({ ids: forgotten })) found.set(state.id, state);
    }
    return found;
  }

  async findByName(name: string): Promise<SlurmJobState | undefined> {
    const listed = await run("squeue", ["--noheader", "--states=all", `--name=${name}`, "--format=%i|%T|%r"]);
    const live: SlurmJobState[] = [];
    for (const line of listed.split("\n")) {
      const [id, state, reason] = line.trim().split("|");
      if (id && state && /^\d+$/.test(id)) live.push({ id, state, reason: cleanReason(reason), exitCode: null });
    }
    // squeue forgets ended jobs after MinJobAge; the job-completion log keeps them.
    return newestJob(live) ?? newestJob(await this.completed({ name }));
  }

  /** Final states from the job-completion log (the last record of an id wins), of these jobs or
   * of the jobs of this name (sacct -c ignores --name: the names are compared here). */
  private async completed(jobs: { ids: readonly string[] } | { name: string }): Promise<SlurmJobState[]> {
    const out = await run("sacct", [
      "--completion",
      "--noheader",
      "--parsable2",
      "--starttime=2000-01-01",
      ...("ids" in jobs ? [`--jobs=${jobs.ids.join(",")}`] : []),
      "--format=JobID,JobName,State,ExitCode",
    ]).catch(() => "");
    const byId = new Map<string, SlurmJobState>();
    for (const line of out.split("\n")) {
      const [id, name, state, exitCode] = line.trim().split("|");
      if (!id || !state || !/^\d+$/.test(id)) continue;
      if ("ids" in jobs ? !jobs.ids.includes(id) : name !== jobs.name) continue;
      byId.set(id, { id, state, reason: null, exitCode: exitCode ?? null });
    }
    return [...byId.values()];
  }

  async cancel(id: string): Promise<void> {
    await run("scancel", [id]).catch((error: unknown) => {
      if (error instanceof SlurmCommandError && /already completing or completed|Invalid job id/i.test(error.stderr)) {
        return "";
      }
      throw error;
    });
  }
}
