import { describe, expect, it } from "vitest";
import {
  bundleResultPayload,
  executionStatusForStage,
  generatedPotentialOf,
  seedOfBundle,
  structureResultPayload,
  topologyResultPayload,
} from "../src/engine-results";

describe("the stage a progress line names", () => {
  it("shows minimisation, dynamics and every equilibration stage as running", () => {
    for (const stage of ["minimisation", "dynamics", "equilibration stage 3 of 21: NPT 600 K, 1000 bar"]) {
      expect(executionStatusForStage(stage)).toBe("running");
    }
  });

  it("shows building, parametrising, bundling and unknown stages as processing", () => {
    for (const stage of ["packing", "parametrising", "charging", "bundling", "", "something new"]) {
      expect(executionStatusForStage(stage)).toBe("processing");
    }
  });
});

describe("a structure result", () => {
  it("keeps what the engine found", () => {
    const payload = structureResultPayload.parse({
      atoms: 9,
      residues: 3,
      molecules: 3,
      kinds: [{ name: "ethanol", count: 3, atoms: 9, formula: "C2H6O", charge: 0 }],
      formula: "C6H18O3",
      net_charge: 0,
      box: [10, 10, 10],
      type: "system",
      viewer_file: "/w/viewer.pdb",
    });
    expect(payload).toMatchObject({ atoms: 9, molecules: 3, net_charge: 0, box: [10, 10, 10], type: "system" });
    expect(payload.kinds).toEqual([{ name: "ethanol", count: 3, atoms: 9, formula: "C2H6O", charge: 0 }]);
    expect(payload.viewer_file).toBe("/w/viewer.pdb");
  });

  it("reads what an older or broken engine leaves out as unknown instead of failing", () => {
    const payload = structureResultPayload.parse({
      atoms: 2.5,
      kinds: [{ nonsense: true }, 7],
      box: [1, 2],
      type: "polymer",
      viewer_file: "",
    });
    expect(payload).toMatchObject({
      atoms: 0,
      residues: 0,
      kinds: [],
      formula: "",
      net_charge: null,
      box: null,
      type: "not_defined",
      viewer_file: null,
      error_code: "INVALID_STRUCTURE",
    });
  });

  it("carries a refusal with its code and line", () => {
    const payload = structureResultPayload.parse({ valid: false, error_code: "TRUNCATED", message: "m", line: 12 });
    expect(payload).toMatchObject({ valid: false, error_code: "TRUNCATED", message: "m", line: 12 });
  });
});

describe("a topology result", () => {
  it("reads the molecule types as text and defaults the rest", () => {
    expect(topologyResultPayload.parse({ molecule_types: ["SOL", 3] })).toMatchObject({
      atoms: 0,
      molecules: 0,
      molecule_types: ["SOL", "3"],
      error_code: "INVALID_TOPOLOGY",
    });
  });
});

describe("a bundle result", () => {
  it("takes the seed from the payload, else from its summary", () => {
    expect(seedOfBundle(bundleResultPayload.parse({ seed: 7, summary: { seed: 8 } }))).toBe(7);
    expect(seedOfBundle(bundleResultPayload.parse({ summary: { seed: 8 } }))).toBe(8);
    expect(seedOfBundle(bundleResultPayload.parse({ summary: "garbage" }))).toBeNull();
  });

  it("turns generate-potential's summary into what the Potentials step shows", () => {
    const result = generatedPotentialOf(
      bundleResultPayload.parse({
        summary: {
          force_field: "GAFF2",
          atoms: 9,
          molecules: 1,
          charges: {
            total_charge: 0,
            method: "AM1-BCC",
            molecules: [{ name: "ethanol", copies: 1, atoms: 9, net_charge: 0, atom_types: ["c3", "oh"] }, null],
          },
          energies: { potential_before_minimization_kj_mol: 12.5 },
        },
      }),
    );
    expect(result).toEqual({
      force_field: "GAFF2",
      atoms: 9,
      molecules: 1,
      total_charge: 0,
      charge_method: "AM1-BCC",
      kinds: [
        {
          name: "ethanol",
          copies: 1,
          atoms: 9,
          net_charge: 0,
          min_atom_charge: 0,
          max_atom_charge: 0,
          atom_types: ["c3", "oh"],
        },
        { name: "", copies: 0, atoms: 0, net_charge: 0, min_atom_charge: 0, max_atom_charge: 0, atom_types: [] },
      ],
      energy_before_minimization_kj_mol: 12.5,
      minimized_energy_kj_mol: null,
    });
  });
});
