import { execFileSync } from "node:child_process";

/** Whether this machine has a Slurm cluster to run jobs on: `probe` (a shell command line) succeeds.
 * `make test` installs and starts a one-node cluster (deploy/slurm/one-node-cluster.sh) as root. */
export function slurmAvailable(probe = "command -v sbatch"): boolean {
  try {
    execFileSync("sh", ["-c", probe], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
