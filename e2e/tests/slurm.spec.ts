import { type ChildProcess, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { slurmAvailable } from "../../apps/server/test/support/slurm";
import { artifact, signUp } from "../support/auth";
import { buildTinySystem } from "../support/polymerBuilder";
import { serverEnv, startServer, stopServer } from "../support/server";

/**
 * Processing started from the UI on a server whose executor is Slurm (issue 26): the one-node
 * cluster `make test` starts (deploy/slurm/one-node-cluster.sh). The server is this spec's own, on
 * E2E_SLURM_PORT, with the same built web app and a throwaway data directory. Its jobs' files go
 * through a shared directory, or through the file store with E2E_SLURM_TRANSFER=store.
 */
const hasSlurm = slurmAvailable();
const port = Number(process.env.E2E_SLURM_PORT ?? 18766);
const baseURL = `http://localhost:${port}`;
const SYSTEM_NAME = "E2E Slurm melt";

test.skip(!hasSlurm, "sbatch is not installed: make test installs and starts a one-node Slurm cluster as root");
test.use({ baseURL });

let server: ChildProcess | undefined;

test.beforeAll(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "polyforge-e2e-slurm-"));
  const shared = join(dataDir, "slurm-shared");
  mkdirSync(shared);
  server = await startServer(
    serverEnv(port, dataDir, {
      POLYFORGE_EXECUTOR: "slurm",
      // shared (the default) or store: the job's files through the embedded store's signed URLs.
      POLYFORGE_SLURM_TRANSFER: process.env.E2E_SLURM_TRANSFER ?? "shared",
      POLYFORGE_SLURM_SHARED_DIR: shared,
      POLYFORGE_SLURM_POLL_MS: "1000",
      POLYFORGE_SLURM_JOBS: JSON.stringify({ "build-system": { cpus: 1, memory: "1024M" } }),
    }),
    "the Slurm-executor server",
  );
});

test.afterAll(async () => {
  await stopServer(server, "SIGTERM");
});

/** Names and states of the PolyForge jobs in Slurm's job-completion log. */
function slurmJobs(): string[] {
  return execFileSync("sacct", ["-c", "-n", "-P", "-S", "2000-01-01", "-o", "JobName,State"], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line.startsWith("polyforge-"));
}

test("a user processes a system on the Slurm cluster from the catalogue and sees it complete", async ({ page }) => {
  test.setTimeout(360_000);
  const before = slurmJobs().length;
  await signUp(page);
  await buildTinySystem(page, SYSTEM_NAME);

  await expect(page.getByRole("heading", { name: "Molecular systems" })).toBeVisible();
  const row = page.getByRole("row").filter({ hasText: SYSTEM_NAME });
  await row.getByRole("button", { name: `Start processing ${SYSTEM_NAME}` }).click();
  await expect(page.getByText("Processing started")).toBeVisible();
  await expect(row.getByText(/^(Waiting for resources|Processing|Running)/)).toBeVisible();
  await page.screenshot({ path: artifact("slurm-catalogue-started"), fullPage: true });
  await expect(row.getByText("Completed")).toBeVisible({ timeout: 300_000 });
  await page.screenshot({ path: artifact("slurm-catalogue-completed"), fullPage: true });

  // It ran as a Slurm batch job, which Slurm recorded as completed.
  const jobs = slurmJobs();
  expect(jobs.length).toBe(before + 1);
  expect(jobs.at(-1)).toMatch(/^polyforge-[0-9a-f-]{36}\|COMPLETED$/);

  // The results came back: the bundle downloads.
  const downloadPromise = page.waitForEvent("download");
  await row.getByRole("button", { name: `Download the files of ${SYSTEM_NAME}` }).click();
  expect((await downloadPromise).suggestedFilename()).toBe("e2e_slurm_melt_files.zip");
});
