import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ENGINE_JOB_SCHEMA_PATH, engineJobSchemaText } from "../scripts/engine-job-schema-file";
import { engineJobSchema } from "../src/engine-job";

const BLOCK = "0b7f6c1e-1d2a-4c3b-9e8f-1a2b3c4d5e6f";
const SEGMENT = "1c8f6c1e-1d2a-4c3b-9e8f-1a2b3c4d5e6f";
const POLYMER = "2d9f6c1e-1d2a-4c3b-9e8f-1a2b3c4d5e6f";

function polyethyleneJob() {
  return {
    system: { id: "3e0f6c1e-1d2a-4c3b-9e8f-1a2b3c4d5e6f", name: "PE melt", sanitized_name: "pe_melt" },
    blocks: [
      {
        id: BLOCK,
        name: "Ethylene",
        type: "linear",
        data: { repeating_unit: "[*:1]CC[*:2]", head_repeating_unit: "[*:2][H]", tail_repeating_unit: "[*:1][H]" },
      },
    ],
    segments: [
      {
        id: SEGMENT,
        name: "PE",
        type: "linear_block",
        data: { total_building_blocks: 10 },
        blocks: [{ building_block_id: BLOCK, order: 0, occurrence: 10 }],
      },
    ],
    polymers: [
      {
        id: POLYMER,
        name: "PE-10",
        force_field: "gaff2",
        segments: [{ segment_id: SEGMENT, occurrence: 1, order: 0 }],
      },
    ],
    system_setup: {
      cell_dimension_selector: "density",
      density: 0.1,
      cell_sides: null,
      potential_wall_z: false,
      construction_order: "as_listed_in_components",
      polymers: [{ polymer_id: POLYMER, order: 0, occurrence: 3 }],
    },
    simulation_protocol: {
      simulation: "MD",
      random_seed: -1,
      minimization: true,
      minimization_steps: 100,
      dynamics: false,
      dynamics_steps: null,
      temperature: null,
      ensemble: null,
    },
  };
}

describe("engine job snapshot", () => {
  it("committed JSON Schema equals the zod export", () => {
    expect(readFileSync(ENGINE_JOB_SCHEMA_PATH, "utf8")).toBe(engineJobSchemaText());
  });

  it("accepts a polymer-builder job", () => {
    expect(engineJobSchema.safeParse(polyethyleneJob()).success).toBe(true);
  });

  it("requires a density when the cell comes from a density", () => {
    const job = polyethyleneJob();
    job.system_setup.density = null as unknown as number;
    expect(engineJobSchema.safeParse(job).success).toBe(false);
  });

  it("rejects an unknown block type and a seed below -1", () => {
    const badType = polyethyleneJob();
    badType.blocks = badType.blocks.map((block) => ({ ...block, type: "branched" }));
    expect(engineJobSchema.safeParse(badType).success).toBe(false);
    const badSeed = polyethyleneJob();
    badSeed.simulation_protocol.random_seed = -2;
    expect(engineJobSchema.safeParse(badSeed).success).toBe(false);
  });

  it("takes NPT with a pressure and the melt equilibration, and jobs frozen before they existed", () => {
    const job = polyethyleneJob();
    const npt = {
      ...job,
      simulation_protocol: {
        ...job.simulation_protocol,
        dynamics: true,
        dynamics_steps: 2100,
        temperature: 300,
        ensemble: "NPT",
        pressure: 1,
        equilibration: "melt_21_step",
      },
    };
    expect(engineJobSchema.safeParse(npt).success).toBe(true);
    expect(engineJobSchema.safeParse(job).success).toBe(true); // no pressure, no equilibration
    const tooHigh = { ...npt, simulation_protocol: { ...npt.simulation_protocol, pressure: 20_000 } };
    expect(engineJobSchema.safeParse(tooHigh).success).toBe(false);
    const unknown = { ...npt, simulation_protocol: { ...npt.simulation_protocol, equilibration: "anneal" } };
    expect(engineJobSchema.safeParse(unknown).success).toBe(false);
  });
});
