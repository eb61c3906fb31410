import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runEngine, withoutPaths } from "../src/platform/jobs/engine-process";
import { REPO_ROOT } from "../src/platform/paths";
import { waitFor } from "./support/wait";

/** Issue 23 finding 3: an engine must never outlive the server that started it, and a restarted
 * runner kills an engine of the job left from before. The engines here are real: the input is a
 * FIFO nobody writes, so the engine sits quietly reading it (no progress lines, like a quiet phase
 * of a long run) until something ends it. */

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function quietInput(dir: string): string {
  const fifo = join(dir, "job.json");
  spawnSync("mkfifo", [fifo]);
  return fifo;
}

describe("engine processes", () => {
  it("end when the server that started them is killed with SIGKILL", async () => {
    const dir = mkdtempSync(join(tmpdir(), "polyforge-orphan-"));
    const input = quietInput(dir);
    const pidFile = join(dir, "engine.pid");
    // A stand-in server: a Node process that starts an engine through runEngine and reports its pid.
    const script = `
      import { writeFileSync } from "node:fs";
      import { runEngine } from ${JSON.stringify(join(REPO_ROOT, "apps/server/src/platform/jobs/engine-process.ts"))};
      const controller = new AbortController();
      runEngine({ command: "build-structure", inputPath: ${JSON.stringify(input)}, workdir: ${JSON.stringify(join(dir, "job-1"))},
        signal: controller.signal, onProgress() {}, jobName: "job" });
      setInterval(() => {}, 1000);
    `;
    const server = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: REPO_ROOT,
      stdio: "ignore",
    });
    const recordPath = join(dir, "job.engine.json");
    const enginePid = await waitFor("the engine to start", async () => {
      try {
        return JSON.parse(readFileSync(recordPath, "utf8")).pid as number;
      } catch {
        return undefined;
      }
    });
    writeFileSync(pidFile, String(enginePid));
    expect(alive(enginePid)).toBe(true);
    server.kill("SIGKILL");
    await once(server, "exit");
    await waitFor("the engine to end with its server", async () => (alive(enginePid) ? undefined : true), 10_000);
  });

  it("kill a stale engine of the same job before starting the new one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "polyforge-stale-"));
    // A process group left from before a restart (here a stand-in that would run for minutes).
    const stale = spawn("sleep", ["600"], { detached: true, stdio: "ignore" });
    await once(stale, "spawn");
    const stat = readFileSync(`/proc/${stale.pid}/stat`, "utf8");
    const startTime = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
    writeFileSync(join(dir, "job.engine.json"), JSON.stringify({ pid: stale.pid, startTime }));

    const killed: number[] = [];
    const controller = new AbortController();
    const outcome = runEngine({
      command: "build-structure",
      inputPath: quietInput(dir),
      workdir: join(dir, "job-2"),
      signal: controller.signal,
      onProgress() {},
      jobName: "job",
      onStaleEngineKilled: (pid) => killed.push(pid),
    });
    expect(killed).toEqual([stale.pid]);
    await once(stale, "exit");
    controller.abort();
    expect(await outcome).toMatchObject({ kind: "error" });

    // A record whose process is gone (or whose pid now names another process) kills nothing.
    writeFileSync(join(dir, "job.engine.json"), JSON.stringify({ pid: process.pid, startTime: "1" }));
    const again = new AbortController();
    const second = runEngine({
      command: "build-structure",
      inputPath: quietInput(join(mkdtempSync(join(tmpdir(), "polyforge-stale-")))),
      workdir: join(dir, "job-3"),
      signal: again.signal,
      onProgress() {},
      jobName: "job",
      onStaleEngineKilled: (pid) => killed.push(pid),
    });
    again.abort();
    await second;
    expect(killed).toEqual([stale.pid]);
  });
});

describe("engine errors", () => {
  it("name the user's files, never the server's paths (issue 23)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "polyforge-paths-"));
    const outcome = await runEngine({
      command: "build-system",
      inputPath: join(dir, "jobs", "secret-dir", "job.json"),
      workdir: join(dir, "work"),
      signal: new AbortController().signal,
      onProgress() {},
    });
    expect(outcome.kind).toBe("error");
    const message = outcome.kind === "error" ? outcome.message : "";
    expect(message).toContain("job.json");
    expect(message).not.toContain(dir);
    expect(message).not.toContain("secret-dir");
    expect(withoutPaths("GRO file /srv/data/jobs/1-2/kind.inpcrd, see https://x.org/a/b")).toBe(
      "GRO file kind.inpcrd, see https://x.org/a/b",
    );
  });
});

describe("engine limits", () => {
  const quietRun = (limits: { wallClockMs: number; memoryBytes: number }) => {
    const dir = mkdtempSync(join(tmpdir(), "polyforge-limits-"));
    return runEngine({
      command: "build-structure",
      inputPath: quietInput(dir),
      workdir: join(dir, "work"),
      signal: new AbortController().signal,
      onProgress() {},
      limits,
    });
  };

  it("end a run past its wall-clock limit as an error saying so", async () => {
    const outcome = await quietRun({ wallClockMs: 1_500, memoryBytes: 2 ** 40 });
    expect(outcome).toMatchObject({ kind: "error", code: "TIME_LIMIT" });
    expect(outcome.kind === "error" && outcome.message).toContain("limit of 2 seconds");
  });

  it("end a run past its memory limit as an error saying so", async () => {
    // A Python interpreter alone holds more than 4 MB.
    const outcome = await quietRun({ wallClockMs: 60_000, memoryBytes: 4 * 1024 ** 2 });
    expect(outcome).toMatchObject({ kind: "error", code: "MEMORY_LIMIT" });
    expect(outcome.kind === "error" && outcome.message).toContain("limit of 4 MB");
  });
});
