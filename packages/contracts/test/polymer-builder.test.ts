import { describe, expect, it } from "vitest";
import { CommonErrors, PolymerBuilderSystemErrors, PolymerErrors } from "../src/errors";
import { DEFAULT_JOB_LIMITS } from "../src/job-limits";
import {
  CELL_SIDE_MESSAGE,
  DEFAULT_SIMULATION_PROTOCOL,
  DENSITY_MESSAGE,
  DYNAMICS_STEPS_MESSAGE,
  densityFromText,
  EQUILIBRATION_NEEDS_NPT_MESSAGE,
  EQUILIBRATION_STEPS_MESSAGE,
  INPUT_PATTERNS,
  MINIMIZATION_STEPS_MESSAGE,
  PRESSURE_MESSAGE,
  type SimulationProtocolBody,
  type SystemSetupBody,
  simulatedTimePs,
  simulationProtocolBody,
  simulationProtocolForm,
  simulationProtocolFormFor,
  simulationProtocolProblem,
  systemSetupForm,
  systemSetupFormFor,
  systemSetupProblem,
  TEMPERATURE_MESSAGE,
} from "../src/polymer-builder";

const P1 = "11111111-1111-4111-8111-111111111111";
const P2 = "22222222-2222-4222-8222-222222222222";

function setup(overrides: Partial<SystemSetupBody> = {}): SystemSetupBody {
  return {
    polymers: [
      { polymer_id: P1, order: 1, occurrence: 3 },
      { polymer_id: P2, order: 2, occurrence: 1 },
    ],
    cell_dimension_selector: "density",
    potential_wall_z: false,
    density: 0.1,
    cell_sides: null,
    construction_order: "as_listed_in_components",
    ...overrides,
  };
}

describe("system setup rules", () => {
  it("accepts a density setup and a three-sided cell", () => {
    expect(systemSetupProblem(setup())).toBeNull();
    expect(systemSetupProblem(setup({ cell_dimension_selector: "cell_sides", cell_sides: [10, 20, 30] }))).toBeNull();
  });

  it("answers CELL_SIZE_MISMATCH unless there are exactly three sides", () => {
    expect(systemSetupProblem(setup({ cell_dimension_selector: "cell_sides", cell_sides: [10, 20] }))?.code).toBe(
      PolymerBuilderSystemErrors.VALIDATE_CELL_SIZE_MISMATCH,
    );
    expect(systemSetupProblem(setup({ cell_dimension_selector: "cell_sides", cell_sides: null }))?.code).toBe(
      PolymerBuilderSystemErrors.VALIDATE_CELL_SIZE_MISMATCH,
    );
  });

  it("requires a density when the selector says density", () => {
    expect(systemSetupProblem(setup({ density: null }))).toEqual({
      code: CommonErrors.VALIDATION_ERROR,
      args: { field: "density", message: "Required field" },
    });
  });

  it("checks polymer order and occurrence with the polymer codes", () => {
    const polymers = (o1: number, o2: number, occ = 1) => [
      { polymer_id: P1, order: o1, occurrence: occ },
      { polymer_id: P2, order: o2, occurrence: 1 },
    ];
    expect(systemSetupProblem(setup({ polymers: polymers(0, 1) }))?.code).toBe(
      PolymerErrors.VALIDATE_POLYMER_ORDER_POSITIVE,
    );
    expect(systemSetupProblem(setup({ polymers: polymers(2, 2) }))?.code).toBe(
      PolymerErrors.VALIDATE_POLYMER_ORDER_DUPLICATE,
    );
    expect(systemSetupProblem(setup({ polymers: polymers(1, 2, 0) }))?.code).toBe(
      PolymerErrors.VALIDATE_OCCURRENCE_POSITIVE,
    );
  });

  it("validates the form with 'Required field' and the occurrence message", () => {
    const result = systemSetupForm.safeParse({
      cell_dimension_selector: "cell_sides",
      density: "",
      cell_sides: ["100", "", "100"],
      potential_wall_z: false,
      construction_order: "random",
      polymers: [{ polymer_id: P1, occurrence: "0" }],
    });
    expect(result.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      ["polymers.0.occurrence", "Occurrence must be 1 or greater"],
      ["cell_sides.1", "Required field"],
    ]);
  });

  it("sends 1 for an unparseable density", () => {
    expect(densityFromText("0.25")).toBe(0.25);
    expect(densityFromText("abc")).toBe(1);
  });
});

function protocol(overrides: Partial<SimulationProtocolBody> = {}): SimulationProtocolBody {
  return {
    simulation: "MD",
    random_seed: -1,
    minimization: true,
    minimization_steps: 100,
    dynamics: true,
    dynamics_steps: 1000,
    temperature: 300,
    ensemble: "NVT",
    ...overrides,
  };
}

describe("simulation protocol rules", () => {
  it("accepts MD with seed -1 and rejects -2 with the spec's message", () => {
    expect(simulationProtocolBody.safeParse(protocol()).success).toBe(true);
    const bad = simulationProtocolBody.safeParse(protocol({ random_seed: -2 }));
    expect(bad.error?.issues[0]?.message).toBe("Random seed must be -1 or greater");
    expect(simulationProtocolBody.safeParse({ ...protocol(), simulation: "MC" }).success).toBe(false);
  });

  it("requires minimization steps when minimization is on", () => {
    expect(simulationProtocolProblem(protocol({ minimization_steps: null }))?.code).toBe(
      PolymerBuilderSystemErrors.VALIDATE_MINIMIZATION_STEPS_MISSING,
    );
    expect(simulationProtocolProblem(protocol({ minimization: false, minimization_steps: null }))).toBeNull();
  });

  it("requires steps, temperature and ensemble when dynamics is on", () => {
    expect(simulationProtocolProblem(protocol({ temperature: null, ensemble: null }))).toEqual({
      code: PolymerBuilderSystemErrors.VALIDATE_DYNAMICS_MISSING_FIELDS,
      args: { fields: ["temperature", "ensemble"] },
    });
    expect(
      simulationProtocolProblem(protocol({ dynamics: false, dynamics_steps: null, temperature: null })),
    ).toBeNull();
  });

  it("checks the form only behind toggles that are on", () => {
    const form = {
      simulation: "MD" as const,
      random_seed: "-3",
      minimization: false,
      minimization_steps: "",
      dynamics: true,
      dynamics_steps: "",
      temperature: "300",
      ensemble: "",
      pressure: "",
      equilibration: "none" as const,
    };
    expect(simulationProtocolForm.safeParse(form).error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      ["random_seed", "Random seed must be -1 or greater"],
      ["dynamics_steps", "Required field"],
      ["ensemble", "Required field"],
    ]);
  });
});

describe("NPT and the melt equilibration", () => {
  const npt = (overrides: Partial<SimulationProtocolBody> = {}) =>
    protocol({ ensemble: "NPT", pressure: 1, equilibration: "none", ...overrides });
  const messages = (body: unknown) =>
    simulationProtocolBody.safeParse(body).error?.issues.map((i) => [i.path.join("."), i.message]);

  it("accepts NPT with a pressure within (0, 10000] bar and refuses others with the bounds' message", () => {
    expect(simulationProtocolBody.safeParse(npt()).success).toBe(true);
    expect(simulationProtocolBody.safeParse(npt({ pressure: 10_000 })).success).toBe(true);
    expect(messages(npt({ pressure: 0 }))).toEqual([["pressure", PRESSURE_MESSAGE]]);
    expect(messages(npt({ pressure: 10_001 }))).toEqual([["pressure", PRESSURE_MESSAGE]]);
    expect(simulationProtocolBody.safeParse({ ...npt(), ensemble: "NPH" }).success).toBe(false);
  });

  it("needs the pressure for NPT only", () => {
    expect(simulationProtocolProblem(npt({ pressure: null }))).toEqual({
      code: PolymerBuilderSystemErrors.VALIDATE_DYNAMICS_MISSING_FIELDS,
      args: { fields: ["pressure"] },
    });
    expect(simulationProtocolProblem(protocol({ ensemble: "NVT", pressure: null }))).toBeNull();
  });

  it("runs the melt equilibration only in NPT with at least 420 steps", () => {
    expect(simulationProtocolBody.safeParse(npt({ equilibration: "melt_21_step", dynamics_steps: 420 })).success).toBe(
      true,
    );
    expect(messages(npt({ equilibration: "melt_21_step", ensemble: "NVT" }))).toEqual([
      ["equilibration", EQUILIBRATION_NEEDS_NPT_MESSAGE],
    ]);
    expect(messages(npt({ equilibration: "melt_21_step", dynamics_steps: 419 }))).toEqual([
      ["dynamics_steps", EQUILIBRATION_STEPS_MESSAGE],
    ]);
    // With dynamics off the stored choice is kept as it is.
    expect(
      simulationProtocolBody.safeParse(npt({ equilibration: "melt_21_step", dynamics: false, ensemble: "NVT" }))
        .success,
    ).toBe(true);
  });

  it("checks pressure and equilibration in the form", () => {
    const form = {
      simulation: "MD" as const,
      random_seed: "1",
      minimization: false,
      minimization_steps: "",
      dynamics: true,
      dynamics_steps: "100",
      temperature: "300",
      ensemble: "NVT",
      pressure: "",
      equilibration: "melt_21_step" as const,
    };
    expect(simulationProtocolForm.safeParse(form).error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      ["equilibration", EQUILIBRATION_NEEDS_NPT_MESSAGE],
      ["dynamics_steps", EQUILIBRATION_STEPS_MESSAGE],
    ]);
    const nptForm = { ...form, ensemble: "NPT", dynamics_steps: "5000" };
    expect(simulationProtocolForm.safeParse(nptForm).error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      ["pressure", "Required field"],
    ]);
    expect(simulationProtocolForm.safeParse({ ...nptForm, pressure: "0" }).error?.issues[0]?.message).toBe(
      PRESSURE_MESSAGE,
    );
    expect(simulationProtocolForm.safeParse({ ...nptForm, pressure: "1.5" }).success).toBe(true);
  });

  it("defaults to 1 bar without equilibration and says 5000 steps are 10 ps", () => {
    expect(DEFAULT_SIMULATION_PROTOCOL).toMatchObject({ pressure: 1, equilibration: "none" });
    expect(simulatedTimePs(5000)).toBe(10);
  });
});

describe("input patterns", () => {
  it("matches digits without a leading zero, signed integers and decimals", () => {
    expect(["", "1", "120"].every((v) => INPUT_PATTERNS.digits.test(v))).toBe(true);
    expect(["0", "01", "1a", "-1"].some((v) => INPUT_PATTERNS.digits.test(v))).toBe(false);
    expect(["", "-", "-1", "42"].every((v) => INPUT_PATTERNS.signedInteger.test(v))).toBe(true);
    expect(INPUT_PATTERNS.signedInteger.test("1.5")).toBe(false);
    expect(["", "0", "0.1", "12.", "3.25"].every((v) => INPUT_PATTERNS.decimal.test(v))).toBe(true);
    expect(["00.1", "01", "-1", ".5"].some((v) => INPUT_PATTERNS.decimal.test(v))).toBe(false);
  });
});

describe("physical bounds at the fields (issue 24)", () => {
  const setupForm = (overrides: object) => ({
    cell_dimension_selector: "cell_sides" as const,
    density: "0.1",
    cell_sides: ["100", "100", "100"] as [string, string, string],
    potential_wall_z: false,
    construction_order: "random" as const,
    polymers: [{ polymer_id: P1, occurrence: "1" }],
    ...overrides,
  });
  const setupMessages = (overrides: object) =>
    systemSetupForm.safeParse(setupForm(overrides)).error?.issues.map((i) => [i.path.join("."), i.message]) ?? [];
  const protocolForm = (overrides: object) => ({
    simulation: "MD" as const,
    random_seed: "1",
    minimization: true,
    minimization_steps: "100",
    dynamics: true,
    dynamics_steps: "5000",
    temperature: "300",
    ensemble: "NVT",
    pressure: "",
    equilibration: "none" as const,
    ...overrides,
  });
  const protocolMessages = (overrides: object) =>
    simulationProtocolForm.safeParse(protocolForm(overrides)).error?.issues.map((i) => [i.path.join("."), i.message]) ??
    [];

  it("keeps each cell side between twice the cutoff (20 Å) and 2,000 Å", () => {
    expect(setupMessages({ cell_sides: ["20", "2000", "100"] })).toEqual([]);
    expect(setupMessages({ cell_sides: ["0", "1e11", "19.9"] })).toEqual([
      ["cell_sides.0", CELL_SIDE_MESSAGE],
      ["cell_sides.1", CELL_SIDE_MESSAGE],
      ["cell_sides.2", CELL_SIDE_MESSAGE],
    ]);
    expect(CELL_SIDE_MESSAGE).toBe(
      "Each side must be between 20 and 2,000 Å (the simulation needs twice its 10 Å cutoff)",
    );
  });

  it("keeps the density positive and no denser than matter", () => {
    const density = (value: string) => setupMessages({ cell_dimension_selector: "density", density: value });
    expect(density("0.8")).toEqual([]);
    expect(density("0")).toEqual([["density", DENSITY_MESSAGE]]);
    expect(density("22")).toEqual([["density", DENSITY_MESSAGE]]);
    // The sides are not checked while the density decides the cell.
    expect(setupMessages({ cell_dimension_selector: "density", cell_sides: ["0", "0", "0"] })).toEqual([]);
  });

  it("keeps the temperature above 0 K and at most 5,000 K, and the steps within the job limits", () => {
    expect(protocolMessages({})).toEqual([]);
    expect(protocolMessages({ temperature: "0" })).toEqual([["temperature", TEMPERATURE_MESSAGE]]);
    expect(protocolMessages({ temperature: "100000" })).toEqual([["temperature", TEMPERATURE_MESSAGE]]);
    expect(protocolMessages({ dynamics_steps: "50000001" })).toEqual([["dynamics_steps", DYNAMICS_STEPS_MESSAGE]]);
    expect(protocolMessages({ minimization_steps: "1000001" })).toEqual([
      ["minimization_steps", MINIMIZATION_STEPS_MESSAGE],
    ]);
    // Behind a toggle that is off, nothing is checked.
    expect(protocolMessages({ dynamics: false, temperature: "100000", dynamics_steps: "0" })).toEqual([]);
  });

  it("takes a deployment's own limits, bounds and messages alike", () => {
    const limits = { ...DEFAULT_JOB_LIMITS, maxCellSide: 500, maxTemperature: 1000, maxDynamicsSteps: 10_000 };
    const setup = systemSetupFormFor(limits).safeParse(setupForm({ cell_sides: ["500", "600", "100"] }));
    expect(setup.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      ["cell_sides.1", "Each side must be between 20 and 500 Å (the simulation needs twice its 10 Å cutoff)"],
    ]);
    const protocol = simulationProtocolFormFor(limits).safeParse(
      protocolForm({ temperature: "1500", dynamics_steps: "10001" }),
    );
    expect(protocol.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      ["dynamics_steps", "Dynamics can have at most 10,000 steps"],
      ["temperature", "Temperature must be above 0 and at most 1,000 K"],
    ]);
    expect(simulationProtocolFormFor(limits).safeParse(protocolForm({ temperature: "1000" })).success).toBe(true);
  });
});
