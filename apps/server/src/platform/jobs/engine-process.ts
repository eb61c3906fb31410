import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
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
  onProgress(stage: string, percent: number): void;
  python?: string;
}

export type EngineOutcome =
  | { kind: "result"; payload: Record<string, unknown> }
  | { kind: "error"; code: string; message: string };

/**
 * Runs one engine command in its own process group and follows its JSON-lines protocol
 * (ARCHITECTURE §6): progress events, then exactly one result or error. Anything else — a crash,
 * a kill, a missing result — becomes an error outcome with a readable message.
 */
export function runEngine(options: EngineRunOptions): Promise<EngineOutcome> {
  const { command, inputPath, workdir, signal, onProgress } = options;
  return new Promise((resolvePromise) => {
    const child = spawn(
      options.python ?? ENGINE_PYTHON,
      ["-m", "polyforge_engine", command, "--input", inputPath, "--workdir", workdir],
      // detached: the engine leads its own process group, so cancel reaches the tools it spawns.
      { detached: true, stdio: ["ignore", "pipe", "pipe"] },
    );
    let outcome: EngineOutcome | undefined;
    const stderrTail: string[] = [];
    let killTimer: NodeJS.Timeout | undefined;

    const killGroup = (sig: NodeJS.Signals) => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, sig);
      } catch {
        // The group is already gone.
      }
    };
    const onAbort = () => {
      killGroup("SIGTERM");
      killTimer = setTimeout(() => killGroup("SIGKILL"), KILL_GRACE_MS);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });

    createInterface({ input: child.stdout }).on("line", (line) => {
      const event = parseEvent(line);
      if (!event) return;
      if (event.event === "progress") {
        onProgress(String(event.stage ?? ""), Number(event.percent ?? 0));
      } else if (event.event === "result" && !outcome) {
        const { event: _kind, ...payload } = event;
        outcome = { kind: "result", payload };
      } else if (event.event === "error" && !outcome) {
        outcome = { kind: "error", code: String(event.code ?? "ENGINE_ERROR"), message: String(event.message ?? "") };
      }
    });
    createInterface({ input: child.stderr }).on("line", (line) => {
      stderrTail.push(line);
      if (stderrTail.length > STDERR_TAIL_LINES) stderrTail.shift();
    });

    child.on("error", (error) => {
      outcome ??= {
        kind: "error",
        code: "ENGINE_NOT_FOUND",
        message: `The engine could not be started: ${error.message}`,
      };
    });
    child.on("close", (exitCode, exitSignal) => {
      clearTimeout(killTimer);
      signal.removeEventListener("abort", onAbort);
      // The whole group goes, so no tool the engine started outlives it.
      killGroup("SIGKILL");
      if (outcome?.kind === "result" && exitCode !== 0) {
        outcome = {
          kind: "error",
          code: "ENGINE_CRASHED",
          message: `The engine exited with code ${exitCode} after its result.`,
        };
      }
      resolvePromise(
        outcome ?? {
          kind: "error",
          code: "ENGINE_CRASHED",
          message:
            `The engine stopped without a result (${exitSignal ? `signal ${exitSignal}` : `exit code ${exitCode}`}).` +
            (stderrTail.length > 0 ? ` Last output: ${stderrTail.at(-1)}` : ""),
        },
      );
    });
  });
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
