import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { EngineExecutor } from "./executor";
import { isDeadRunner } from "./liveness";

/** The file in an attempt's work directory that names the runner holding the job. */
const HOLDER_FILE = ".polyforge-runner";

/**
 * Makes a job attempt's work directory. A local attempt's directory is its runner's alone: it is
 * marked with the runner's id, and the directories of runners that are certainly dead (a server or
 * worker killed mid-job: its attempt's files would stay on the disk for good) are removed beside
 * it — at every attempt, so a job taken back clears what the killed attempt left. A Slurm job's
 * directory outlives its runner on purpose (a restarted server follows the job there): not marked.
 */
export async function openWorkdir(executor: EngineExecutor, workdir: string, runnerId: string): Promise<void> {
  await mkdir(workdir, { recursive: true });
  if (executor.kind !== "local") return;
  await writeFile(join(workdir, HOLDER_FILE), runnerId);
  await sweepWorkdirs(dirname(workdir));
}

/** Removes the work directories under `root` whose runner is certainly dead (liveness.ts: a process
 * of this machine that is gone); answers how many. Run at start and by openWorkdir. */
export async function sweepWorkdirs(root: string): Promise<number> {
  let removed = 0;
  for (const entry of await readdir(root, { withFileTypes: true }).catch(() => [])) {
    if (!entry.isDirectory()) continue;
    const dir = join(root, entry.name);
    const holder = await readFile(join(dir, HOLDER_FILE), "utf8").catch(() => undefined);
    if (holder === undefined || !isDeadRunner(holder.trim())) continue;
    await rm(dir, { recursive: true, force: true });
    removed++;
  }
  return removed;
}
