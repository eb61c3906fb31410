import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { enginePython, REPO_ROOT } from "../src/platform/paths";

// A worker on another machine runs the engine from its own environment, not this checkout's .venv.
describe("the engine's Python", () => {
  it("is this checkout's .venv unless POLYFORGE_ENGINE_PYTHON names another", () => {
    expect(enginePython(undefined)).toBe(resolve(REPO_ROOT, ".venv/bin/python"));
    expect(enginePython("  ")).toBe(resolve(REPO_ROOT, ".venv/bin/python"));
    expect(enginePython(" /opt/polyforge/.venv/bin/python ")).toBe("/opt/polyforge/.venv/bin/python");
  });

  it("is read from the environment when the server starts", async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        "--import",
        "tsx",
        "-e",
        'import("./apps/server/src/platform/paths.ts").then((m) => console.log(m.ENGINE_PYTHON))',
      ],
      { cwd: REPO_ROOT, env: { ...process.env, POLYFORGE_ENGINE_PYTHON: "/opt/worker/venv/bin/python" } },
    );
    expect(stdout.trim()).toBe("/opt/worker/venv/bin/python");
  }, 60_000);
});
