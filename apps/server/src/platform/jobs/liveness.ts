import { createHash, randomUUID } from "node:crypto";
import { readFileSync, readlinkSync } from "node:fs";
import { hostname } from "node:os";

/**
 * Who holds a job's lease, told apart well enough to see that a holder on this machine is dead.
 * A runner's id is `host:pid:random:space`, where `space` names this kernel boot and process-id
 * namespace: another runner with the same `space` is a process this one can look at (/proc).
 * A restarted server (or worker) sees the leases of the process it replaces held by a process
 * that no longer exists, and takes those jobs back at once instead of after their lease lapses
 * (issue 23: for the length of a lease an execution showed 'running' with no engine behind it).
 */

/** This kernel boot and pid namespace, or undefined where /proc does not tell (then no runner is
 * ever judged dead early; leases lapse as before). */
const PROCESS_SPACE: string | undefined = (() => {
  try {
    const boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    const namespace = readlinkSync("/proc/self/ns/pid");
    return createHash("sha256").update(`${boot}/${namespace}`).digest("hex").slice(0, 12);
  } catch {
    return undefined;
  }
})();

/** Ids of the runners alive in this process (a process may run several, e.g. one per queue). */
const liveHere = new Set<string>();

/** A new runner id for this process. */
export function newRunnerId(): string {
  return [hostname(), process.pid, randomUUID().slice(0, 8), PROCESS_SPACE ?? "-"].join(":");
}

export function markRunnerLive(runnerId: string, live: boolean): void {
  if (live) liveHere.add(runnerId);
  else liveHere.delete(runnerId);
}

/**
 * True only when `holder` is certainly a dead runner: one of this machine's process space whose
 * process is gone, or one of this very process (same pid, e.g. pid 1 in a container restarted)
 * that is not running here. Anything else (another machine, an id of another form, a live or
 * unreadable process) is presumed alive: its lease lapses in its own time.
 */
export function isDeadRunner(holder: string): boolean {
  if (!PROCESS_SPACE) return false;
  const parts = holder.split(":");
  if (parts.length < 4 || parts.at(-1) !== PROCESS_SPACE) return false;
  const pid = Number(parts.at(-3));
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return !liveHere.has(holder);
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
}
