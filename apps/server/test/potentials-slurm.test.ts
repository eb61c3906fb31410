import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./support/app";
import { type Caller, caller, expectStatus } from "./support/polymer-builder";
import { convertSmiles } from "./support/processing";
import { slurmAvailable } from "./support/slurm";
import { userClaims } from "./support/tokens";
import { waitFor } from "./support/wait";

const execFileAsync = promisify(execFile);

/**
 * Potentials (issue 21) with POLYFORGE_EXECUTOR=slurm against the one-node cluster `make test`
 * starts (deploy/slurm/one-node-cluster.sh): the generation is a Slurm batch job whose results come
 * back to the API, and deleting a potential while its job runs cancels the Slurm job.
 */
const hasSlurm = slurmAvailable("command -v sbatch && sinfo --noheader");

/** Slurm's jobs of this name with their states (squeue while it knows them, else sacct). */
async function slurmJobs(name: string): Promise<Array<{ id: string; state: string }>> {
  const queued = await execFileAsync("squeue", ["-h", "-t", "all", `--name=${name}`, "-o", "%i|%T"]).catch(() => ({
    stdout: "",
  }));
  const done = await execFileAsync("sacct", ["-c", "-n", "-P", "-S", "2000-01-01", "-o", "JobID,JobName,State"]).catch(
    () => ({ stdout: "" }),
  );
  const jobs = new Map<string, string>();
  for (const line of done.stdout.split("\n")) {
    const [id, jobName, state] = line.split("|");
    if (id && jobName === name && state) jobs.set(id, state.split(" ")[0]!);
  }
  for (const line of queued.stdout.trim().split("\n").filter(Boolean)) {
    const [id, state] = line.split("|");
    if (id && state) jobs.set(id, state);
  }
  return [...jobs].map(([id, state]) => ({ id, state }));
}

describe.skipIf(!hasSlurm)("potentials on the Slurm executor", () => {
  let testApp: TestApp;
  let user: Caller;
  let token: string;

  beforeAll(async () => {
    testApp = await startTestApp("pglite", {
      POLYFORGE_EXECUTOR: "slurm",
      POLYFORGE_SLURM_SHARED_DIR: mkdtempSync(join(tmpdir(), "potentials-server-slurm-")),
      POLYFORGE_SLURM_POLL_MS: "300",
      // Small requests the test machine's node can grant.
      POLYFORGE_SLURM_JOBS: JSON.stringify({
        "generate-potential": { cpus: 1, memory: "1024M" },
        "convert-smiles": { cpus: 1, memory: "1024M" },
      }),
    });
    token = await testApp.issuer.sign(userClaims(), { expiresIn: "1h" });
    user = caller(testApp, token);
  }, 120_000);
  afterAll(async () => {
    await testApp?.close();
  });

  async function converted(smiles: string): Promise<string> {
    const { id } = await expectStatus(user, 201, "POST", "/systems", { name: smiles, origin: "smiles" });
    await convertSmiles(user, id, smiles, 240_000, 300);
    return id;
  }

  const body = { origin: "generate", name: "On the cluster", force_field: "GAFF2", charge: 0, minimization_steps: 5 };

  it("generates a potential as a Slurm batch job and serves its zip", async () => {
    const systemId = await converted("CCO");
    const created = await expectStatus(user, 201, "POST", `/systems/${systemId}/potentials`, body);
    const done = await waitFor(
      "the generation to end",
      async () => {
        const p = await expectStatus(user, 200, "GET", `/systems/${systemId}/potentials/${created.id}`);
        return ["completed", "failed", "error", "cancelled"].includes(p.potential_execution.status) ? p : undefined;
      },
      240_000,
      300,
    );
    expect(done.potential_execution.error_message).toBeNull();
    expect(done.potential_execution.status).toBe("completed");
    expect(done.potential_execution.result.kinds[0].atom_types).toEqual(["c3", "h1", "hc", "ho", "oh"]);
    expect(await slurmJobs(`polyforge-potential-${created.id}`)).toEqual([
      expect.objectContaining({ state: "COMPLETED" }),
    ]);
    const zip = await testApp.app.inject({
      method: "GET",
      url: `/api/v2/systems/${systemId}/potentials/${created.id}/files`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(zip.statusCode).toBe(200);
    expect(zip.headers["content-disposition"]).toBe('attachment; filename="on_the_cluster_files.zip"');
    expect(zip.rawPayload.includes(Buffer.from("force_field/C2H6O.frcmod"))).toBe(true);
  }, 300_000);

  it("cancels the Slurm job of a potential deleted while it runs", async () => {
    const systemId = await converted("CCCCCCCCCCCCCCCCCCCCCCCCCCCCCC(=O)O");
    const created = await expectStatus(user, 201, "POST", `/systems/${systemId}/potentials`, {
      ...body,
      minimization_steps: 1_000_000,
    });
    const name = `polyforge-potential-${created.id}`;
    await waitFor(
      "the Slurm job to run",
      async () => ((await slurmJobs(name)).some((job) => job.state === "RUNNING") ? true : undefined),
      240_000,
      300,
    );
    await expectStatus(user, 204, "DELETE", `/systems/${systemId}/potentials/${created.id}`);
    const jobs = await waitFor(
      "scancel",
      async () => {
        const found = await slurmJobs(name);
        return found.length > 0 && found.every((job) => job.state === "CANCELLED") ? found : undefined;
      },
      60_000,
      300,
    );
    expect(jobs).toHaveLength(1);
  }, 300_000);
});
