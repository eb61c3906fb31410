import { type ChildProcess, type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { ENGINE_PYTHON } from "../paths";

/** How long a cancelled engine gets to stop on SIGTERM before its process group is killed. */
const KILL_GRACE_MS = 10_000;
/** Lines of the engine's stderr kept to explain a crash. */
const STDERR_TAIL_LINES = 20;

export interface EngineRunOptions {
  /** `build-system`, `convert-smiles`, … (ARCHITECTURE §6). */
  command: string;
  inputPath: string;
  workdir: string;
  /** Aborting sends SIGTERM to the engine's process group (then SIGKILL after a grace period). */
  signal: AbortSignal;
  onProgress: ProgressListener;
  python?: string;
  /** Names the job's engine across restarts (one per job): an engine of this job still running
   * from before a restart is killed before the new one starts (see killStaleEngine). */
  jobName?: string;
  /** Told when a stale engine of the job was found and killed. */
  onStaleEngineKilled?(pid: number): void;
  /** Overrides the process-wide limits (configureEngineLimits). */
  limits?: EngineLimits;
}

/** What a dynamics progress line adds (ARCHITECTURE §6): simulated time so far and in all, and
 * the engine's estimate of the wall time left. */
export interface ProgressDetail {
  simulatedNs: number;
  totalNs: number;
  /** Null until the engine has measured its speed. */
  remainingSeconds: number | null;
}

export type ProgressListener = (stage: string, percent: number, detail?: ProgressDetail) => void;

/** What one engine process may use: past either, it is killed and the job ends as error. */
export interface EngineLimits {
  wallClockMs: number;
  memoryBytes: number;
}

let defaultLimits: EngineLimits = { wallClockMs: 48 * 3_600_000, memoryBytes: 16 * 1024 ** 3 };

/** Sets the limits of every engine process of this server or worker (POLYFORGE_JOB_*_LIMIT_*). */
export function configureEngineLimits(limits: EngineLimits): void {
  defaultLimits = limits;
}

/** How often the memory of an engine's process group is measured. */
const MEMORY_CHECK_MS = 1_000;

export type EngineOutcome =
  | { kind: "result"; payload: Record<string, unknown> }
  | { kind: "error"; code: string; message: string };

/**
 * Runs one engine command in its own process group and follows its JSON-lines protocol
 * (ARCHITECTURE §6): progress events, then exactly one result or error. Anything else — a crash,
 * a kill, a missing result — becomes an error outcome with a readable message.
 */
export function runEngine(options: EngineRunOptions): Promise<EngineOutcome> {
  const { signal, onProgress } = options;
  const record = options.jobName ? engineRecordPath(options.workdir, options.jobName) : undefined;
  if (record) {
    const killed = killStaleEngine(record);
    if (killed !== undefined) options.onStaleEngineKilled?.(killed);
  }
  return new Promise((resolvePromise) => {
    const child = spawnEngine(options);
    if (record && child.pid !== undefined) writeEngineRecord(record, child.pid);
    let outcome: EngineOutcome | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    const killGroup = (sig: NodeJS.Signals) => killProcessGroup(child, sig);
    const onAbort = () => {
      killGroup("SIGTERM");
      killTimer = setTimeout(() => killGroup("SIGKILL"), KILL_GRACE_MS);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    const stopLimitWatch = watchLimits(child, options.limits ?? defaultLimits, (code, message) => {
      outcome ??= { kind: "error", code, message };
      killGroup("SIGKILL");
    });
    createInterface({ input: child.stdout }).on("line", (line) => {
      outcome = applyEngineLine(line, outcome, onProgress);
    });
    const stderrTail = lastLines(child.stderr, STDERR_TAIL_LINES);
    child.on("error", (error) => {
      outcome ??= {
        kind: "error",
        code: "ENGINE_NOT_FOUND",
        message: `The engine could not be started: ${error.message}`,
      };
    });
    child.on("close", (exitCode, exitSignal) => {
      clearTimeout(killTimer);
      stopLimitWatch();
      signal.removeEventListener("abort", onAbort);
      // The whole group goes, so no tool the engine started outlives it.
      killGroup("SIGKILL");
      if (record) rmSync(record, { force: true });
      resolvePromise(closedOutcome(outcome, exitCode, exitSignal, stderrTail));
    });
  });
}

/** Starts the engine's Python on the command, leading its own process group. */
function spawnEngine(options: EngineRunOptions): ChildProcessWithoutNullStreams {
  const python = options.python ?? ENGINE_PYTHON;
  const args = ["-m", "polyforge_engine", options.command, "--input", options.inputPath, "--workdir", options.workdir];
  // The engine must not outlive this process (issue 23): the kernel kills it when we die
  // (setpriv's parent-death signal, where util-linux has it), and the engine watches the stdin
  // pipe we hold and kills its whole process group (its tools too) when the pipe closes.
  const [file, argv] = SETPRIV ? [SETPRIV, ["--pdeathsig", "KILL", "--", python, ...args]] : [python, args];
  const child = spawn(file, argv, {
    // detached: the engine leads its own process group, so cancel reaches the tools it spawns.
    detached: true,
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, POLYFORGE_WATCH_PARENT: "stdin" },
  });
  // Nothing is ever written: the pipe only closes when this process ends.
  child.stdin.on("error", () => {});
  return child;
}

function killProcessGroup(child: ChildProcess, sig: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, sig);
  } catch {
    // The group is already gone.
  }
}

/**
 * Past a limit (wall clock, the process group's memory) `stop` is told the error to end the job
 * with. Answers the function that stops watching.
 */
function watchLimits(
  child: ChildProcess,
  limits: EngineLimits,
  stop: (code: string, message: string) => void,
): () => void {
  const wallClockTimer = setTimeout(() => {
    const hours = limits.wallClockMs / 3_600_000;
    stop(
      "TIME_LIMIT",
      `The run took longer than this server's limit of ${hours >= 1 ? `${hours} hours` : `${Math.ceil(limits.wallClockMs / 1000)} seconds`} and was stopped.`,
    );
  }, limits.wallClockMs);
  const memoryTimer = setInterval(() => {
    if (child.pid === undefined || processGroupMemory(child.pid) <= limits.memoryBytes) return;
    const megabytes = Math.round(limits.memoryBytes / 1024 ** 2);
    stop(
      "MEMORY_LIMIT",
      `The run needed more memory than this server's limit of ${megabytes.toLocaleString("en-US")} MB and was stopped. Build a smaller system.`,
    );
  }, MEMORY_CHECK_MS);
  return () => {
    clearTimeout(wallClockTimer);
    clearInterval(memoryTimer);
  };
}

/** The stream's last `count` lines, kept up to date as it is read (for a crash's message). */
function lastLines(stream: Readable, count: number): string[] {
  const tail: string[] = [];
  createInterface({ input: stream }).on("line", (line) => {
    tail.push(line);
    if (tail.length > count) tail.shift();
  });
  return tail;
}

/** The run's outcome once the process has closed: a result needs exit code 0, and no outcome at
 * all is a crash, told with the exit and the last line the engine wrote to stderr. */
function closedOutcome(
  outcome: EngineOutcome | undefined,
  exitCode: number | null,
  exitSignal: NodeJS.Signals | null,
  stderrTail: string[],
): EngineOutcome {
  if (outcome?.kind === "result" && exitCode !== 0) {
    return {
      kind: "error",
      code: "ENGINE_CRASHED",
      message: `The engine exited with code ${exitCode} after its result.`,
    };
  }
  return (
    outcome ?? {
      kind: "error",
      code: "ENGINE_CRASHED",
      message:
        `The engine stopped without a result (${exitSignal ? `signal ${exitSignal}` : `exit code ${exitCode}`}).` +
        (stderrTail.length > 0 ? ` Last output: ${withoutPaths(stderrTail.at(-1) ?? "")}` : ""),
    }
  );
}

/**
 * Reads one line of the engine's protocol (ARCHITECTURE §6), wherever the lines come from (a child's
 * stdout, a Slurm job's progress file): progress goes to `onProgress`; the first result or error
 * becomes the outcome, an error's message without server paths. Answers the outcome so far.
 */
export function applyEngineLine(
  line: string,
  outcome: EngineOutcome | undefined,
  onProgress: ProgressListener,
): EngineOutcome | undefined {
  const event = parseEvent(line);
  if (!event) return outcome;
  if (event.event === "progress") {
    onProgress(String(event.stage ?? ""), Number(event.percent ?? 0), progressDetail(event));
  } else if (event.event === "result" && !outcome) {
    const { event: _kind, ...payload } = event;
    return { kind: "result", payload };
  } else if (event.event === "error" && !outcome) {
    const message = withoutPaths(String(event.message ?? ""));
    return { kind: "error", code: String(event.code ?? "ENGINE_ERROR"), message };
  }
  return outcome;
}

/** The simulated time and time left of a dynamics progress line, when it has them. */
function progressDetail(event: Record<string, unknown>): ProgressDetail | undefined {
  const finite = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : undefined);
  const simulatedNs = finite(event.simulated_ns);
  const totalNs = finite(event.total_ns);
  if (simulatedNs === undefined || totalNs === undefined || simulatedNs < 0 || totalNs <= 0) return undefined;
  const remaining = finite(event.remaining_s);
  return { simulatedNs, totalNs, remainingSeconds: remaining !== undefined && remaining >= 0 ? remaining : null };
}

function parseEvent(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined; // not a protocol line (a tool printing to stdout): ignored
  }
}

/** util-linux's setpriv, to give the engine a parent-death signal (Linux); absent elsewhere. */
const SETPRIV = ["/usr/bin/setpriv", "/bin/setpriv"].find((path) => existsSync(path));

/** Where the running engine of a job is recorded: next to its work directories, one per job. */
function engineRecordPath(workdir: string, jobName: string): string {
  return join(dirname(workdir), `${jobName}.engine.json`);
}

/** The kernel's start time of a process (clock ticks after boot), or undefined when it is gone:
 * with the pid it tells a process from a later one that reuses its pid. */
function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces) start after its closing parenthesis.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

function writeEngineRecord(path: string, pid: number): void {
  try {
    writeFileSync(path, JSON.stringify({ pid, startTime: processStartTime(pid) ?? null }));
  } catch {
    // No record, no stale kill later: the parent-death watch still ends the engine.
  }
}

/** Kills the process group of an engine of this job left from before a restart (its record
 * names a live process with the same start time). Returns its pid when one was killed. */
export function killStaleEngine(recordPath: string): number | undefined {
  let record: { pid?: unknown; startTime?: unknown };
  try {
    record = JSON.parse(readFileSync(recordPath, "utf8"));
  } catch {
    return undefined;
  }
  rmSync(recordPath, { force: true });
  const { pid, startTime } = record;
  if (typeof pid !== "number" || typeof startTime !== "string") return undefined;
  if (processStartTime(pid) !== startTime) return undefined;
  try {
    process.kill(-pid, "SIGKILL");
    return pid;
  } catch {
    return undefined;
  }
}

// An absolute path of two or more segments (not part of a URL or a relative path).
const ABSOLUTE_PATH = /(?<![\w.:/])(?:\/[\w.+@-]+)+\/([\w.+@-]+)/g;

/** The message with every absolute path cut to its file name: what the user reads of an engine's
 * failure names their system's files, never the server's directories (issue 23). */
export function withoutPaths(message: string): string {
  return message.replace(ABSOLUTE_PATH, "$1");
}

const PAGE_SIZE = 4096;

/** Resident memory (bytes) of every process in a process group, read from /proc (0 elsewhere). */
function processGroupMemory(groupId: number): number {
  let total = 0;
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // After the name: state(0) ppid(1) pgrp(2) … rss(21), in pages.
      if (Number(fields[2]) === groupId) total += Number(fields[21]) * PAGE_SIZE;
    } catch {
      // The process ended meanwhile.
    }
  }
  return total;
}
