import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/platform/config";
import { sbatchOptions } from "../src/platform/jobs/slurm/cli-client";
import { stateGroup } from "../src/platform/jobs/slurm/client";
import { batchScript, openmmPlatformFor } from "../src/platform/jobs/slurm/executor";
import { defaultResources, jobSize, resourcesFor } from "../src/platform/jobs/slurm/resources";
import { memoryToMegabytes, timeToMinutes } from "../src/platform/jobs/slurm/rest-client";

const slurm = { POLYFORGE_EXECUTOR: "slurm", POLYFORGE_SLURM_SHARED_DIR: "/shared/jobs" };

describe("the executor setting", () => {
  it("is local unless slurm is chosen", () => {
    expect(loadConfig({}).executor).toBe("local");
    expect(loadConfig({}).slurm).toBeUndefined();
    expect(() => loadConfig({ POLYFORGE_EXECUTOR: "kubernetes" })).toThrow(/POLYFORGE_EXECUTOR/);
  });

  it("needs a shared directory with slurm, and a token and user with slurmrestd", () => {
    expect(() => loadConfig({ POLYFORGE_EXECUTOR: "slurm" })).toThrow(/POLYFORGE_SLURM_SHARED_DIR/);
    expect(() => loadConfig({ ...slurm, POLYFORGE_SLURM_REST_URL: "http://h:6820" })).toThrow(/POLYFORGE_SLURM_JWT/);
    expect(() => loadConfig({ ...slurm, POLYFORGE_SLURM_REST_URL: "http://h:6820", POLYFORGE_SLURM_JWT: "t" })).toThrow(
      /POLYFORGE_SLURM_USER/,
    );
    const config = loadConfig({
      ...slurm,
      POLYFORGE_SLURM_REST_URL: "http://h:6820/",
      POLYFORGE_SLURM_JWT: "t",
      POLYFORGE_SLURM_USER: "polyforge",
    });
    expect(config.slurm?.rest).toEqual({ url: "http://h:6820", user: "polyforge", jwt: "t", jwtFile: undefined });
    expect(config.slurm?.sharedDir).toBe("/shared/jobs");
  });

  it("needs no shared directory when files go through the store", () => {
    const store = loadConfig({ POLYFORGE_EXECUTOR: "slurm", POLYFORGE_SLURM_TRANSFER: "store" }).slurm!;
    expect(store).toMatchObject({ transfer: "store", scratchDir: "/tmp" });
    expect(loadConfig(slurm).slurm?.transfer).toBe("shared");
    expect(() => loadConfig({ ...slurm, POLYFORGE_SLURM_TRANSFER: "ftp" })).toThrow(/POLYFORGE_SLURM_TRANSFER/);
  });

  it("validates resources per job kind", () => {
    const config = loadConfig({
      ...slurm,
      POLYFORGE_SLURM_PARTITION: "compute",
      POLYFORGE_SLURM_JOBS: JSON.stringify({ "build-system": { partition: "gpu", gpus: 1, time: "2:00:00" } }),
    });
    expect(config.slurm?.perKind["build-system"]).toEqual({ partition: "gpu", gpus: 1, time: "2:00:00" });
    for (const bad of [
      "{not json",
      JSON.stringify({ "make-coffee": {} }),
      JSON.stringify({ "build-system": { time: "soon" } }),
      JSON.stringify({ "build-system": { memory: "lots" } }),
      JSON.stringify({ "build-system": { partition: "gpu --uid=0" } }),
      JSON.stringify({ "build-system": { cpus: 0 } }),
    ]) {
      expect(() => loadConfig({ ...slurm, POLYFORGE_SLURM_JOBS: bad }), bad).toThrow(/POLYFORGE_SLURM_JOBS/);
    }
    expect(() => loadConfig({ ...slurm, POLYFORGE_SLURM_ACCOUNT: "a;b" })).toThrow(/POLYFORGE_SLURM_ACCOUNT/);
  });
});

describe("resources from a job's size", () => {
  const engineJob = {
    segments: [{ id: "s", data: { total_building_blocks: 100 } }],
    polymers: [{ id: "p", segments: [{ segment_id: "s", occurrence: 1 }] }],
    system_setup: { polymers: [{ polymer_id: "p", occurrence: 50 }] },
    simulation_protocol: { minimization: true, minimization_steps: 1000, dynamics: true, dynamics_steps: 100_000 },
  };

  it("counts units of every copy and the protocol's steps", () => {
    expect(jobSize(engineJob)).toEqual({ atoms: 50 * 100 * 12, steps: 101_000 });
    expect(jobSize({ atoms: 900 })).toEqual({ atoms: 900, steps: 0 });
  });

  it("asks more time and memory for larger and longer builds; settings override", () => {
    const small = defaultResources("build-system", { atoms: 100, steps: 100 });
    const large = defaultResources("build-system", jobSize(engineJob));
    expect(Number(large.time)).toBeGreaterThan(Number(small.time));
    expect(memoryToMegabytes(large.memory)).toBeGreaterThan(memoryToMegabytes(small.memory));
    const chosen = resourcesFor(
      "build-system",
      { atoms: 100, steps: 100 },
      {
        defaults: { partition: "compute", account: "chem" },
        perKind: { "build-system": { partition: "gpu", gpus: 1 } },
      },
    );
    expect(chosen).toMatchObject({ partition: "gpu", account: "chem", gpus: 1, cpus: small.cpus, time: small.time });
  });

  it("turns them into sbatch options and slurmrestd's units", () => {
    const options = sbatchOptions({
      name: "polyforge-x",
      workdir: "/w",
      scriptPath: "/w/job.sbatch",
      script: "",
      stdoutPath: "/w/o",
      stderrPath: "/w/e",
      resources: { partition: "gpu", time: "30", cpus: 2, memory: "2048M", gpus: 1 },
    });
    expect(options).toEqual(
      expect.arrayContaining(["--parsable", "--export=NIL", "--cpus-per-task=2", "--mem=2048M", "--time=30"]),
    );
    expect(options).toEqual(expect.arrayContaining(["--partition=gpu", "--gpus=1"]));
    expect(options.some((o) => o.startsWith("--account"))).toBe(false);
    expect([timeToMinutes("30"), timeToMinutes("0:30"), timeToMinutes("2:00:00"), timeToMinutes("1-02:00")]).toEqual([
      30, 1, 120, 1560,
    ]);
    expect([memoryToMegabytes("8G"), memoryToMegabytes("512"), memoryToMegabytes("1T")]).toEqual([8192, 512, 1048576]);
  });

  it("runs jobs given GPUs on the engine's GPU platform (auto), the others on the CPU, unless set", () => {
    const resources = { time: "30", cpus: 2, memory: "2048M" };
    const unset = loadConfig(slurm).slurm!;
    expect(unset.openmmPlatform).toBeUndefined();
    expect(openmmPlatformFor({ ...resources, gpus: 1 }, unset)).toBe("auto");
    expect(openmmPlatformFor({ ...resources, gpus: 0 }, unset)).toBe("CPU");
    const cuda = loadConfig({ ...slurm, POLYFORGE_SLURM_OPENMM_PLATFORM: "CUDA" }).slurm!;
    expect(openmmPlatformFor({ ...resources, gpus: 1 }, cuda)).toBe("CUDA");
    expect(() => loadConfig({ ...slurm, POLYFORGE_SLURM_OPENMM_PLATFORM: "TPU" })).toThrow(
      /POLYFORGE_SLURM_OPENMM_PLATFORM/,
    );
    // The compute node gets none of the server's environment: the script sets the engine's.
    const script = batchScript("/opt/pf/python", "build-system", "/w/job.json", "/w", "auto");
    expect(script).toContain("export POLYFORGE_OPENMM_PLATFORM='auto'\n");
    expect(script.indexOf("POLYFORGE_OPENMM_PLATFORM")).toBeLessThan(script.indexOf("-m polyforge_engine"));
  });

  it("groups Slurm's states as the executions' statuses", () => {
    expect(["PENDING", "REQUEUED", "CONFIGURING"].map(stateGroup)).toEqual(["waiting", "waiting", "waiting"]);
    expect(["RUNNING", "COMPLETING"].map(stateGroup)).toEqual(["running", "running"]);
    expect(["COMPLETED", "CANCELLED by 0", "TIMEOUT", "OUT_OF_MEMORY", "NODE_FAIL", "FAILED"].map(stateGroup)).toEqual([
      "completed",
      "cancelled",
      "failed",
      "failed",
      "failed",
      "failed",
    ]);
  });
});
