import { describe, expect, it } from "vitest";
import { parseEnergies } from "./energies";

describe("parseEnergies", () => {
  it("reads time, potential energy, temperature and density by their header names", () => {
    const csv = [
      "time_ps,potential_energy_kj_mol,kinetic_energy_kj_mol,total_energy_kj_mol,temperature_k,density_g_cm3",
      "0.1,-120.5,30.2,-90.3,290.1,0.101",
      "0.2,-118.0,31.0,-87.0,301.7,0.102",
    ].join("\n");
    expect(parseEnergies(csv)).toEqual({
      time: [0.1, 0.2],
      potentialEnergy: [-120.5, -118],
      temperature: [290.1, 301.7],
      density: [0.101, 0.102],
    });
  });

  it("reads the box side of runs that record it (NPT moves it)", () => {
    const csv = [
      "time_ps,potential_energy_kj_mol,kinetic_energy_kj_mol,total_energy_kj_mol,temperature_k,density_g_cm3,box_a_nm,box_b_nm,box_c_nm,stage",
      "0.0,-10,3,-7,290,0.80,2.77,2.77,2.77,1",
      "0.2,-11,3,-8,300,0.95,2.62,2.62,2.62,1",
    ].join("\n");
    expect(parseEnergies(csv)).toMatchObject({ density: [0.8, 0.95], boxA: [2.77, 2.62] });
  });

  it("refuses a file without a needed column or with a broken value", () => {
    expect(() => parseEnergies("time_ps,potential_energy_kj_mol\n1,2")).toThrow(/temperature/);
    expect(() => parseEnergies("time_ps,potential_energy_kj_mol,temperature_k,density_g_cm3\n1,x,3,4")).toThrow(
      /line 2: potentialEnergy/,
    );
  });
});
