import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { ENGINE_PYTHON } from "./paths";

const execFileAsync = promisify(execFile);

export type EngineStatus =
  | { found: true; version: string; tools: Record<string, string | null> }
  | { found: false; error: string };

/** Asks the engine for its version and the versions of the tools it finds
 * (`python -m polyforge_engine version --json`). */
export async function probeEngine(python = ENGINE_PYTHON): Promise<EngineStatus> {
  try {
    const { stdout } = await execFileAsync(python, ["-m", "polyforge_engine", "version", "--json"], {
      timeout: 30_000,
    });
    const tools = JSON.parse(stdout) as Record<string, string | null>;
    const version = tools.polyforge_engine;
    if (!version) return { found: false, error: "The engine did not report its version" };
    return { found: true, version, tools };
  } catch (err) {
    return { found: false, error: err instanceof Error ? err.message.split("\n")[0]! : String(err) };
  }
}
