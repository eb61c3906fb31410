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
import type { StoreTransfer } from "./transfer";

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

/** The batch script of the store transfer: engine/remote_job.py fetches the inputs, runs the
 * engine in the node's scratch directory and sends events and results back by the manifest's URLs. */
export function remoteBatchScript(
  python: string,
  command: string,
  manifest: Record<string, unknown>,
  openmmPlatform = "CPU",
): string {
  return [
    "#!/bin/bash",
    `# PolyForge engine job (${command}), written by the server. Runs on a compute node: it needs the`,
    "# engine's Python and to reach the file store; its files travel by the presigned URLs below.",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell variable, expanded by bash on the node
    'export OMP_NUM_THREADS="${SLURM_CPUS_PER_TASK:-1}"',
    `export POLYFORGE_OPENMM_PLATFORM=${quote(openmmPlatform)}`,
    `exec ${quote(python)} -m polyforge_engine.remote_job <<'POLYFORGE_MANIFEST'`,
    JSON.stringify(manifest),
    "POLYFORGE_MANIFEST",
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

  /** Removals of ended jobs' objects from the store (store transfer), by job name. */
  private readonly cleanups = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly settings: SlurmSettings,
    private readonly logger: FastifyBaseLogger,
    client?: SlurmClient,
    /** The file store transfer (POLYFORGE_SLURM_TRANSFER=store); without it, the shared directory. */
    private readonly transfer?: StoreTransfer,
  ) {
    this.client = client ?? (settings.rest ? new SlurmRestClient(settings.rest) : new SlurmCliClient());
    this.monitor = new SlurmMonitor(this.client, settings.pollMs, logger);
    this.maxJobs = settings.maxJobs;
  }

  workdirFor(workRoot: string, jobId: string): string {
    // With the store transfer the work directory is the server's own: the node has its copy.
    return this.transfer ? join(workRoot, "slurm", jobId) : join(this.settings.sharedDir, jobId);
  }

  keepsWorkdir(stopReason: unknown): boolean {
    if (this.transfer) return false; // the job's files are in the store
    return stopReason === "shutdown" || stopReason === "lease_lost";
  }

  async run(options: ExecutorRunOptions): Promise<ExecutorOutcome> {
    const outcome = await this.runJob(options);
    // The job's objects in the store go once it ended here (not when this server stops and leaves
    // it to the next): later, so that a server stopping before the run is recorded collects the
    // same results again.
    const stopped = options.signal.aborted && options.signal.reason !== "cancelled";
    if (this.transfer && !stopped) this.discardLater(options.jobName);
    return outcome;
  }

  private discardLater(jobName: string): void {
    clearTimeout(this.cleanups.get(jobName));
    const discard = () => {
      this.cleanups.delete(jobName);
      void this.transfer
        ?.discard(jobName)
        .catch((err: unknown) =>
          this.logger.warn({ err, jobName }, "removing a Slurm job's files from the store failed"),
        );
    };
    const timer = setTimeout(discard, this.settings.storeCleanupMs);
    timer.unref();
    this.cleanups.set(jobName, timer);
  }

  /** Whether a runner got as far as submitting the job: its batch script (shared directory) or its
   * inputs in the store are written just before sbatch. */
  private async mayHaveSubmitted(options: ExecutorRunOptions, files: ReturnType<typeof jobFiles>) {
    if (!options.onSubmitted) return false;
    if (this.transfer) return this.transfer.hasInputs(options.jobName);
    return (await stat(files.script).catch(() => undefined)) !== undefined;
  }

  private async runJob(options: ExecutorRunOptions): Promise<ExecutorOutcome> {
    const files = jobFiles(options.workdir);
    let id = options.externalId ?? undefined;
    if (!id && (await this.mayHaveSubmitted(options, files))) {
      // The batch script (or the store's inputs) is written just before sbatch: a runner got that
      // far and may have died before recording the job id. A job of this (per-execution) name is
      // the one it submitted; it is followed, not submitted a second time.
      const found = await this.client.findByName(options.jobName);
      if (found && stateGroup(found.state) !== "cancelled") {
        this.logger.info(
          { slurmJobId: found.id, jobName: options.jobName },
          "found a Slurm job submitted before a restart",
        );
        id = found.id;
        await options.onSubmitted?.(id);
      }
    }
    if (!id) {
      if (options.signal.aborted) return stoppedOutcome();
      const resources = resourcesFor(options.command, jobSize(options.input), this.settings);
      const python = this.settings.python ?? options.python ?? ENGINE_PYTHON;
      const platform = openmmPlatformFor(resources, this.settings);
      let script: string;
      if (this.transfer) {
        await rm(files.script, { force: true });
        const manifest = await this.transfer.send(
          options.jobName,
          options.command,
          options.workdir,
          this.settings.scratchDir,
        );
        script = remoteBatchScript(python, options.command, manifest, platform);
      } else {
        // The job reads its own copy of the input: the caller writes its input again when it
        // takes a job back, while the job found above may be starting to read it.
        await copyFile(options.inputPath, files.input);
        script = batchScript(python, options.command, files.input, options.workdir, platform);
        await rm(files.events, { force: true });
      }
      // Readable by the server only (the store transfer's script holds its URLs).
      await writeFile(files.script, script, { mode: 0o700 });
      try {
        id = await this.client.submit({
          name: options.jobName,
          // With the store transfer nothing of the job is on a shared path: it starts in the
          // node's scratch directory, and what it prints is sent back by remote_job.
          workdir: this.transfer ? this.settings.scratchDir : options.workdir,
          scriptPath: files.script,
          script,
          stdoutPath: this.transfer ? "/dev/null" : files.stdout,
          stderrPath: this.transfer ? "/dev/null" : files.stderr,
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
      const { transfer } = this;
      const tail = new EventTail(
        transfer ? storeSource(() => transfer.events(options.jobName)) : fileSource(files.events),
      );
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
      const readProgress = () => tail.read((...args) => options.onProgress(...args));
      const handle = async (state: SlurmJobState | undefined): Promise<ExecutorOutcome | undefined> => {
        if (!state) {
          if (++misses < MISSES_BEFORE_LOST) return undefined;
          await readProgress();
          return tail.outcome ? this.withResults(tail.outcome, options) : lostOutcome(id);
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
        return this.withResults(await this.finalOutcome(id, state, tail.outcome, options), options);
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

  /** A result's files, collected from the store into the server's work directory (store
   * transfer; on the shared path they are there already). */
  private async withResults(outcome: ExecutorOutcome, options: ExecutorRunOptions): Promise<ExecutorOutcome> {
    if (outcome.kind !== "result" || !this.transfer) return outcome;
    if (await this.transfer.collect(options.jobName, options.workdir)) return outcome;
    return {
      kind: "error",
      code: "SLURM_RESULTS_MISSING",
      message: "The job ended with a result, but its files did not reach the file store.",
    };
  }

  /** The last of the engine's stderr: from the shared path, or as the node sent it to the store. */
  private async stderrTail(options: ExecutorRunOptions): Promise<string> {
    const text = this.transfer
      ? await this.transfer.stderr(options.jobName).catch(() => "")
      : await readFile(jobFiles(options.workdir).stderr, "utf8").catch(() => "");
    const lines = text.trim().split("\n").filter(Boolean);
    const last = lines.at(-1)?.slice(-STDERR_TAIL_BYTES);
    return last ? ` Last output: ${last}` : "";
  }

  /** What an ended job's Slurm state and the engine's own last word make of it. */
  private async finalOutcome(
    id: string,
    state: SlurmJobState,
    engine: EngineOutcome | undefined,
    options: ExecutorRunOptions,
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
        message: `The engine stopped without a result (${slurmSays}).${await this.stderrTail(options)}`,
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
      message: `The job failed on the cluster (${slurmSays}).${await this.stderrTail(options)}`,
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

/** Reads the engine's JSON lines from `offset` on: the whole so far (`size`) and the bytes past it. */
type EventSource = (offset: number) => Promise<{ size: number; data: Buffer } | undefined>;

/** The events file on the shared path, read from the offset on. */
function fileSource(path: string): EventSource {
  return async (offset) => {
    const handle = await open(path, "r").catch(() => undefined);
    if (!handle) return undefined; // not started yet
    try {
      const { size } = await handle.stat();
      const data = Buffer.alloc(Math.max(0, size - offset));
      let read = 0;
      while (read < data.length) {
        const { bytesRead } = await handle.read(data, read, data.length - read, offset + read);
        if (bytesRead === 0) break;
        read += bytesRead;
      }
      return { size, data: data.subarray(0, read) };
    } finally {
      await handle.close();
    }
  };
}

/** The events the node last sent to the store (whole each time). */
function storeSource(fetch: () => Promise<Buffer | undefined>): EventSource {
  return async (offset) => {
    const whole = await fetch();
    return whole && { size: whole.length, data: whole.subarray(Math.min(offset, whole.length)) };
  };
}

type EngineProgress = Parameters<typeof applyEngineLine>[2];

/** Reads the engine's JSON lines as they grow (a requeued job starts the file again). */
class EventTail {
  outcome: EngineOutcome | undefined;
  private offset = 0;
  private partial = "";
  private decoder = new StringDecoder("utf8");

  constructor(private readonly source: EventSource) {}

  reset(): void {
    this.offset = 0;
    this.partial = "";
    this.outcome = undefined;
    this.decoder = new StringDecoder("utf8");
  }

  async read(onProgress: EngineProgress): Promise<void> {
    let got = await this.source(this.offset);
    if (got && got.size < this.offset) {
      this.reset();
      got = await this.source(0);
    }
    if (!got || got.data.length === 0) return;
    this.offset += got.data.length;
    this.consume(this.decoder.write(got.data), onProgress);
  }

  private consume(text: string, onProgress: EngineProgress): void {
    const lines = (this.partial + text).split("\n");
    this.partial = lines.pop() ?? "";
    for (const line of lines) this.outcome = applyEngineLine(line, this.outcome, onProgress);
  }
}
