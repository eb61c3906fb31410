import { CommonErrors, PolymerBuilderSystemErrors, PolymerErrors } from "@polyforge/contracts/errors";
import {
  EQUILIBRATION_NEEDS_NPT_MESSAGE,
  EQUILIBRATION_STEPS_MESSAGE,
  PRESSURE_MESSAGE,
} from "@polyforge/contracts/polymer-builder";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./support/app";
import { databaseKinds } from "./support/database";
import {
  type Caller,
  caller,
  createPolymer,
  createSegment,
  errorCode,
  expectStatus,
  linearBlock,
  linearBlockSegment,
  startDraft,
} from "./support/polymer-builder";
import { userClaims } from "./support/tokens";

describe.each(databaseKinds())("system setup and simulation protocol API on %s", (kind) => {
  let testApp: TestApp;
  let alice: Caller;
  let setupId: string;
  let protocolId: string;
  let p1: string;
  let p2: string;

  beforeAll(async () => {
    testApp = await startTestApp(kind);
    alice = caller(testApp, await testApp.issuer.sign(userClaims()));
    await startDraft(alice);
    const block = await linearBlock(alice);
    const segment = await createSegment(alice, linearBlockSegment("S", [[block, 4]]));
    p1 = await createPolymer(alice, "P1", [[segment, 1]]);
    p2 = await createPolymer(alice, "P2", [[segment, 2]]);
    setupId = (await expectStatus(alice, 200, "GET", "/polymer_builder_systems/system_setup/draft")).id;
    protocolId = (await expectStatus(alice, 200, "GET", "/polymer_builder_systems/simulation_protocol/draft")).id;
  });
  afterAll(() => testApp.close());

  const setupUrl = () => `/polymer_builder_systems/system_setup/${setupId}`;
  const protocolUrl = () => `/polymer_builder_systems/simulation_protocol/${protocolId}`;
  const setup = (overrides: object = {}) => ({
    polymers: [
      { polymer_id: p2, order: 1, occurrence: 3 },
      { polymer_id: p1, order: 2, occurrence: 1 },
    ],
    cell_dimension_selector: "cell_sides",
    potential_wall_z: true,
    cell_sides: [40, 50, 60],
    construction_order: "random",
    ...overrides,
  });
  const protocol = (overrides: object = {}) => ({
    simulation: "MD",
    random_seed: 42,
    minimization: true,
    minimization_steps: 200,
    dynamics: true,
    dynamics_steps: 2000,
    temperature: 310,
    ensemble: "NVE",
    pressure: 1,
    equilibration: "none",
    ...overrides,
  });

  it("saves the setup with its polymers in order and keeps the other selector's value", async () => {
    const saved = await expectStatus(alice, 200, "PATCH", setupUrl(), setup());
    expect(saved).toMatchObject({
      id: setupId,
      cell_dimension_selector: "cell_sides",
      cell_sides: [40, 50, 60],
      density: 0.1,
      potential_wall_z: true,
      construction_order: "random",
      saved: true,
      polymers: [
        { polymer_id: p2, name: "P2", order: 1, occurrence: 3 },
        { polymer_id: p1, name: "P1", order: 2, occurrence: 1 },
      ],
    });
    expect(await expectStatus(alice, 200, "GET", "/polymer_builder_systems/system_setup/draft")).toEqual(saved);
  });

  it("answers each setup rule with its code", async () => {
    const check = async (payload: object, status: number, code: string) => {
      const response = await alice.call("PATCH", setupUrl(), payload);
      expect(response.status, JSON.stringify(response.body)).toBe(status);
      expect(errorCode(response.body)).toBe(code);
    };
    await check(setup({ cell_sides: [40, 50] }), 400, PolymerBuilderSystemErrors.VALIDATE_CELL_SIZE_MISMATCH);
    await check(setup({ cell_dimension_selector: "density", density: null }), 400, CommonErrors.VALIDATION_ERROR);
    await check(setup({ cell_sides: [40, -1, 3] }), 400, CommonErrors.VALIDATION_ERROR);
    const polymers = (o1: number, o2: number, occurrence = 1) => [
      { polymer_id: p1, order: o1, occurrence },
      { polymer_id: p2, order: o2, occurrence: 1 },
    ];
    await check(setup({ polymers: polymers(0, 1) }), 400, PolymerErrors.VALIDATE_POLYMER_ORDER_POSITIVE);
    await check(setup({ polymers: polymers(1, 1) }), 400, PolymerErrors.VALIDATE_POLYMER_ORDER_DUPLICATE);
    await check(setup({ polymers: polymers(1, 2, 0) }), 400, PolymerErrors.VALIDATE_OCCURRENCE_POSITIVE);
    await check(
      setup({ polymers: [{ polymer_id: crypto.randomUUID(), order: 1, occurrence: 1 }] }),
      404,
      PolymerErrors.GET_NOT_FOUND,
    );
    await check(setup({ construction_order: "sideways" }), 400, CommonErrors.VALIDATION_ERROR);
    await expectStatus(alice, 200, "PATCH", setupUrl(), setup());
  });

  it("finds only the caller's own draft setup and protocol", async () => {
    const bob = caller(testApp, await testApp.issuer.sign(userClaims()));
    await startDraft(bob);
    const foreign = await bob.call("PATCH", setupUrl(), setup());
    expect(foreign.status).toBe(404);
    expect(errorCode(foreign.body)).toBe(PolymerBuilderSystemErrors.UPDATE_NOT_FOUND);
    expect(errorCode((await bob.call("PATCH", protocolUrl(), protocol())).body)).toBe(
      PolymerBuilderSystemErrors.UPDATE_NOT_FOUND,
    );
    expect(errorCode((await bob.call("PATCH", "/polymer_builder_systems/system_setup/x", setup())).body)).toBe(
      PolymerBuilderSystemErrors.VALIDATE_ID_INVALID_FORMAT,
    );
  });

  it("saves the protocol", async () => {
    const saved = await expectStatus(alice, 200, "PATCH", protocolUrl(), protocol());
    expect(saved).toEqual({ id: protocolId, ...protocol() });
  });

  it("answers each protocol rule", async () => {
    const check = async (payload: object, code: string, message?: string) => {
      const response = await alice.call("PATCH", protocolUrl(), payload);
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      expect(errorCode(response.body)).toBe(code);
      if (message) expect(response.body.errors[0].args.message).toBe(message);
    };
    await check(protocol({ minimization_steps: null }), PolymerBuilderSystemErrors.VALIDATE_MINIMIZATION_STEPS_MISSING);
    await check(protocol({ temperature: null }), PolymerBuilderSystemErrors.VALIDATE_DYNAMICS_MISSING_FIELDS);
    await check(protocol({ ensemble: null }), PolymerBuilderSystemErrors.VALIDATE_DYNAMICS_MISSING_FIELDS);
    await check(protocol({ random_seed: -2 }), CommonErrors.VALIDATION_ERROR, "Random seed must be -1 or greater");
    await check(protocol({ simulation: "MC" }), CommonErrors.VALIDATION_ERROR);
    await check(protocol({ ensemble: "NPH" }), CommonErrors.VALIDATION_ERROR);
    await check(
      protocol({ ensemble: "NPT", pressure: null }),
      PolymerBuilderSystemErrors.VALIDATE_DYNAMICS_MISSING_FIELDS,
    );
    await check(protocol({ ensemble: "NPT", pressure: 0 }), CommonErrors.VALIDATION_ERROR, PRESSURE_MESSAGE);
    await check(protocol({ ensemble: "NPT", pressure: 20_000 }), CommonErrors.VALIDATION_ERROR, PRESSURE_MESSAGE);
    await check(
      protocol({ ensemble: "NVT", equilibration: "melt_21_step" }),
      CommonErrors.VALIDATION_ERROR,
      EQUILIBRATION_NEEDS_NPT_MESSAGE,
    );
    await check(
      protocol({ ensemble: "NPT", equilibration: "melt_21_step", dynamics_steps: 100 }),
      CommonErrors.VALIDATION_ERROR,
      EQUILIBRATION_STEPS_MESSAGE,
    );
  });

  it("saves NPT with its pressure and the melt equilibration, and keeps them behind dynamics off", async () => {
    const npt = protocol({ ensemble: "NPT", pressure: 250.5, equilibration: "melt_21_step", dynamics_steps: 21_000 });
    expect(await expectStatus(alice, 200, "PATCH", protocolUrl(), npt)).toEqual({ id: protocolId, ...npt });
    expect(await expectStatus(alice, 200, "GET", "/polymer_builder_systems/simulation_protocol/draft")).toEqual({
      id: protocolId,
      ...npt,
    });
    const off = await expectStatus(alice, 200, "PATCH", protocolUrl(), {
      simulation: "MD",
      random_seed: 1,
      minimization: false,
      dynamics: false,
    });
    expect(off).toMatchObject({ ensemble: "NPT", pressure: 250.5, equilibration: "melt_21_step" });
  });

  it("keeps the stored values behind a toggle that is off", async () => {
    await expectStatus(alice, 200, "PATCH", protocolUrl(), protocol());
    const off = await expectStatus(alice, 200, "PATCH", protocolUrl(), {
      simulation: "MD",
      random_seed: -1,
      minimization: false,
      dynamics: false,
    });
    expect(off).toMatchObject({
      random_seed: -1,
      minimization: false,
      minimization_steps: 200,
      dynamics: false,
      dynamics_steps: 2000,
      temperature: 310,
      ensemble: "NVE",
    });
  });
});
