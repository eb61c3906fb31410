import { copyFile, open, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { StringDecoder } from "node:string_decoder";
import type { FastifyBaseLogger } from "fastify";
import { ENGINE_PYTHON } from "../../paths";
import { applyEngineLine, type EngineOutcome } from "../engine-process";
import type { EngineExecutor, ExecutorOutcome, ExecutorRunOptions } from "../executor";
import { SlurmCliClient } from "./cli-client";
import { type SlurmClient, type SlurmJobState, stateGroup } from "./client";
import { SlurmMonitor } from "./monitor";
import { type JobResources, jobSize, resourcesFor } from "./resources";
import { SlurmRestClient } from "./rest-client";
import type { SlurmSettings } from "./settings";

/** A job Slurm has no record of at this many polls in a row is given up. */
const MISSES_BEFORE_LOST = 2;
/** Bytes of the engine's stderr kept to explain a failure. */
const STDERR_TAIL_BYTES = 600;

/** The files of one job in its work directory on the shared path. */
function jobFiles(workdir: string) {
  return {
    script: join(workdir, "job.sbatch"),
    /** The input as submitted (the job's own copy). */
    input: join(workdir, "job.submitted.json"),
    /** The engine's JSON lines (ARCHITECTURE §6), which the server tails. */
    events: join(workdir, "events.jsonl"),
    stdout: join(workdir, "slurm.out"),
    stderr: join(workdir, "engine.err"),
  };
}

/** Single-quoted for bash. */
function quote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The OpenMM platform of a job (the engine's POLYFORGE_OPENMM_PLATFORM): the setting, else auto
 * (a GPU where the node has one, else the CPU with the reason in the run's log) for a job given GPUs. */
export function openmmPlatformFor(resources: JobResources, settings: Pick<SlurmSettings, "openmmPlatform">): string {
  return settings.openmmPlatform ?? (resources.gpus > 0 ? "auto" : "CPU");
}

/** The batch script: the engine, its JSON lines into a file on the shared path. */
export function batchScript(
  python: string,
  command: string,
  inputPath: string,
  workdir: string,
  openmmPlatform = "CPU",
): string {
  const { events } = jobFiles(workdir);
  return [
    "#!/bin/bash",
    `# PolyForge engine job (${command}), written by the server. Runs on a compute node: it needs`,
    "# the engine's Python and this directory on the shared path, not the database or the server.",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell variable, expanded by bash on the node
    'export OMP_NUM_THREADS="${SLURM_CPUS_PER_TASK:-1}"',
    `export POLYFORGE_OPENMM_PLATFORM=${quote(openmmPlatform)}`,
    `cd ${quote(workdir)} || exit 1`,
    `exec ${quote(python)} -m polyforge_engine ${quote(command)} --input ${quote(inputPath)} --workdir ${quote(workdir)} > ${quote(events)}`,
    "",
  ].join("\n");
}

/**
 * Runs each engine job as a Slurm batch job (ISSUE 26). Files travel through the shared directory
 * (POLYFORGE_SLURM_SHARED_DIR): the input snapshot is written there, the engine's JSON lines and
 * results come back there. All jobs' states are polled together (SlurmMonitor). A job keeps running
 * on Slurm when the server stops; the next server follows it again by its job id.
 */
export class SlurmExecutor implements EngineExecutor {
  readonly kind = "slurm";
  readonly maxJobs: number;
  readonly client: SlurmClient;
  private readonly monitor: SlurmMonitor;

  constructor(
    private readonly settings: SlurmSettings,
    private readonly logger: FastifyBaseLogger,
    client?: SlurmClient,
  ) {
    this.client = client ?? (settings.rest ? new SlurmRestClient(settings.rest) : new SlurmCliClient());
    this.monitor = new SlurmMonitor(this.client, settings.pollMs, logger);
    this.maxJobs = settings.maxJobs;
  }

  workdirFor(_workRoot: string, jobId: string): string {
    return join(this.settings.sharedDir, jobId);
  }

  keepsWorkdir(stopReason: unknown): boolean {
    return stopReason === "shutdown" || stopReason === "lease_lost";
  }

  async run(options: ExecutorRunOptions): Promise<ExecutorOutcome> {
    const files = jobFiles(options.workdir);
    let id = options.externalId ?? undefined;
    if (!id && options.onSubmitted && (await stat(files.script).catch(() => undefined))) {
      // The batch script is written just before sbatch: a runner got that far and may have died
      // before recording the job id. A job of this (per-execution) name is the one it submitted;
      // it is followed, not submitted a second time.
      const found = await this.client.findByName(options.jobName);
      if (found && stateGroup(found.state) !== "cancelled") {
        this.logger.info(
          { slurmJobId: found.id, jobName: options.jobName },
          "found a Slurm job submitted before a restart",
        );
        id = found.id;
        await options.onSubmitted(id);
      }
    }
    if (!id) {
      if (options.signal.aborted) return stoppedOutcome();
      // The job reads its own copy of the input: the caller writes its input again when it takes
      // a job back, while the job found above may be starting to read it.
      await copyFile(options.inputPath, files.input);
      const resources = resourcesFor(options.command, jobSize(options.input), this.settings);
      const script = batchScript(
        this.settings.python ?? options.python ?? ENGINE_PYTHON,
        options.command,
        files.input,
        options.workdir,
        openmmPlatformFor(resources, this.settings),
      );
      await writeFile(files.script, script, { mode: 0o755 });
      await rm(files.events, { force: true });
      try {
        id = await this.client.submit({
          name: options.jobName,
          workdir: options.workdir,
          scriptPath: files.script,
          script,
          stdoutPath: files.stdout,
          stderrPath: files.stderr,
          resources,
        });
      } catch (error) {
        return {
          kind: "error",
          code: "SLURM_SUBMIT_FAILED",
          message: `The cluster did not take the job: ${error instanceof Error ? error.message : String(error)}`,
        };
      }
      try {
        await options.onSubmitted?.(id);
      } catch (error) {
        // Not recorded, so no server would ever follow it: it must not run unseen.
        await this.client.cancel(id).catch(() => undefined);
        throw error;
      }
    }
    return this.follow(id, options, files);
  }

  async close(): Promise<void> {
    this.monitor.close();
  }

  /** Follows the job through the monitor's polls until it ends or stops being ours. */
  private follow(id: string, options: ExecutorRunOptions, files: ReturnType<typeof jobFiles>) {
    return new Promise<ExecutorOutcome>((resolve) => {
      const tail = new EventTail(files.events);
      let settled = false;
      let busy = false;
      let misses = 0;
      let reported: string | undefined;
      const finish = (outcome: ExecutorOutcome) => {
        if (settled) return;
        settled = true;
        unwatch();
        options.signal.removeEventListener("abort", onAbort);
        resolve(outcome);
      };
      const onAbort = () => {
        settled || void this.stop(id, options).finally(() => finish(stoppedOutcome()));
      };
      const readProgress = () => tail.read((stage, percent) => options.onProgress(stage, percent));
      const handle = async (state: SlurmJobState | undefined): Promise<ExecutorOutcome | undefined> => {
        if (!state) {
          if (++misses < MISSES_BEFORE_LOST) return undefined;
          await readProgress();
          return tail.outcome ?? lostOutcome(id);
        }
        misses = 0;
        const group = stateGroup(state.state);
        if (group === "waiting") {
          // Requeued (node failure, scontrol requeue): the engine starts over, so does its file.
          if (reported === "running") tail.reset();
          const key = `waiting:${state.reason}`;
          if (reported !== key) options.onQueueState?.({ waiting: true, reason: state.reason });
          reported = key;
          return undefined;
        }
        if (group === "running") {
          if (reported !== "running") options.onQueueState?.({ waiting: false, reason: null });
          reported = "running";
          await readProgress();
          return undefined;
        }
        await readProgress();
        return this.finalOutcome(id, state, tail.outcome, files);
      };
      const unwatch = this.monitor.watch(id, (state) => {
        if (settled || busy || options.signal.aborted) return;
        busy = true;
        handle(state)
          .then((outcome) => outcome && finish(outcome))
          .catch((err: unknown) => this.logger.warn({ err, slurmJobId: id }, "following a Slurm job failed"))
          .finally(() => {
            busy = false;
          });
      });
      if (options.signal.aborted) onAbort();
      else options.signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** A cancel reaches Slurm (scancel); a shutdown or a lease taken back leaves the job running for
   * the next server to follow, when the caller records its id to follow it by (onSubmitted). */
  private async stop(id: string, options: ExecutorRunOptions): Promise<void> {
    const reason: unknown = options.signal.reason;
    const followable = options.onSubmitted !== undefined;
    const cancelled =
      !followable || reason === "cancelled" || (reason === "lease_lost" && (await options.wasCancelled?.()) === true);
    if (!cancelled) return;
    await this.client.cancel(id).catch((err: unknown) => this.logger.warn({ err, slurmJobId: id }, "scancel failed"));
  }

  /** What an ended job's Slurm state and the engine's own last word make of it. */
  private async finalOutcome(
    id: string,
    state: SlurmJobState,
    engine: EngineOutcome | undefined,
    files: ReturnType<typeof jobFiles>,
  ): Promise<ExecutorOutcome> {
    const group = stateGroup(state.state);
    const name = state.state.split(/\s/)[0] ?? state.state;
    const exit = state.exitCode && state.exitCode !== "0:0" ? `, exit code ${state.exitCode}` : "";
    const slurmSays = `Slurm job ${id} ended ${name}${state.reason ? ` (${state.reason})` : ""}${exit}`;
    if (group === "cancelled") return { kind: "cancelled", message: `Cancelled on the cluster (Slurm job ${id}).` };
    if (group === "completed") {
      if (engine) return engine;
      return {
        kind: "error",
        code: "ENGINE_CRASHED",
        message: `The engine stopped without a result (${slurmSays}).${await stderrTail(files.stderr)}`,
      };
    }
    const limits: Record<string, [string, string]> = {
      TIMEOUT: ["SLURM_TIMEOUT", "The job reached its time limit on the cluster"],
      OUT_OF_MEMORY: ["SLURM_OUT_OF_MEMORY", "The job ran out of the memory it asked the cluster for"],
      NODE_FAIL: ["SLURM_NODE_FAIL", "The compute node running the job failed"],
      BOOT_FAIL: ["SLURM_NODE_FAIL", "The compute node could not be started for the job"],
      PREEMPTED: ["SLURM_PREEMPTED", "The cluster preempted the job"],
      DEADLINE: ["SLURM_TIMEOUT", "The job missed its deadline on the cluster"],
    };
    const limit = limits[name];
    if (limit) return { kind: "error", code: limit[0], message: `${limit[1]} (${slurmSays}).` };
    if (engine?.kind === "error") return { ...engine, message: `${engine.message} (${slurmSays}.)` };
    return {
      kind: "error",
      code: "SLURM_JOB_FAILED",
      message: `The job failed on the cluster (${slurmSays}).${await stderrTail(files.stderr)}`,
    };
  }
}

function stoppedOutcome(): ExecutorOutcome {
  return { kind: "error", code: "STOPPED", message: "The job was stopped." };
}

function lostOutcome(id: string): ExecutorOutcome {
  return {
    kind: "error",
    code: "SLURM_JOB_LOST",
    message: `Slurm has no record of job ${id} any more and it left no result; start the processing again.`,
  };
}

async function stderrTail(path: string): Promise<string> {
  const text = await readFile(path, "utf8").catch(() => "");
  const lines = text.trim().split("\n").filter(Boolean);
  const last = lines.at(-1)?.slice(-STDERR_TAIL_BYTES);
  return last ? ` Last output: ${last}` : "";
}

/** Reads the engine's JSON lines as they grow (a requeued job starts the file again). */
class EventTail {
  outcome: EngineOutcome | undefined;
  private offset = 0;
  private partial = "";
  private decoder = new StringDecoder("utf8");

  constructor(private readonly path: string) {}

  reset(): void {
    this.offset = 0;
    this.partial = "";
    this.outcome = undefined;
    this.decoder = new StringDecoder("utf8");
  }

  async read(onProgress: (stage: string, percent: number) => void): Promise<void> {
    const handle = await open(this.path, "r").catch(() => undefined);
    if (!handle) return; // not started yet
    try {
      const { size } = await handle.stat();
      if (size < this.offset) this.reset();
      const buffer = Buffer.alloc(64 * 1024);
      while (this.offset < size) {
        const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, size - this.offset), this.offset);
        if (bytesRead === 0) break;
        this.offset += bytesRead;
        this.consume(this.decoder.write(buffer.subarray(0, bytesRead)), onProgress);
      }
    } finally {
      await handle.close();
    }
  }

  private consume(text: string, onProgress: (stage: string, percent: number) => void): void {
    const lines = (this.partial + text).split("\n");
    this.partial = lines.pop() ?? "";
    for (const line of lines) this.outcome = applyEngineLine(line, this.outcome, onProgress);
  }
}
