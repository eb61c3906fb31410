import { z } from "zod";
import { int32 } from "./bounds";
import { CELL_DIMENSION_SELECTORS, CONSTRUCTION_ORDERS, ENSEMBLES, EQUILIBRATIONS } from "./enums";
import { CommonErrors, PolymerBuilderSystemErrors, PolymerErrors } from "./errors";
import { DEFAULT_JOB_LIMITS, type JobLimits, MIN_CELL_SIDE } from "./job-limits";
import { orderedItemsProblem } from "./polymers";
import { MAX_PRESSURE_BAR, MELT_EQUILIBRATION_MIN_STEPS, TIMESTEP_FS } from "./protocol-bounds";
import { atLeastOneText, type RuleProblem, SEGMENT_MESSAGES } from "./segments";
import { REQUIRED_FIELD } from "./users";

/** System setup and simulation protocol drafts (SPEC §3/§5, /v2/polymer_builder_systems). */

export const DEFAULT_DENSITY = 0.1;
export const DEFAULT_CELL_SIDE = 100;
/** SPEC §5: an unparseable density is sent as 1. */
export const UNPARSEABLE_DENSITY = 1;
export const RANDOM_SEED_MESSAGE = "Random seed must be -1 or greater";
export const SIMULATIONS = ["MD"] as const;

/** The input patterns of SPEC §5, each also accepting the empty string. */
export const INPUT_PATTERNS = {
  /** digits only, no leading zero */
  digits: /^(?:[1-9]\d*)?$/,
  /** a signed integer */
  signedInteger: /^(?:-?\d*)$/,
  /** a non-negative decimal with an optional fraction and no leading zeros */
  decimal: /^(?:(?:0|[1-9]\d*)(?:\.\d*)?)?$/,
} as const;

/** Density text to the number sent: unparseable → 1. */
export function densityFromText(text: string): number {
  const value = Number.parseFloat(text);
  return Number.isFinite(value) ? value : UNPARSEABLE_DENSITY;
}

// ---------------------------------------------------------------------------------------------
// System setup

export const setupPolymerInput = z.object({ polymer_id: z.guid(), order: int32(), occurrence: int32() });

export const systemSetupBody = z.object({
  polymers: z.array(setupPolymerInput).min(1).max(1000),
  cell_dimension_selector: z.enum(CELL_DIMENSION_SELECTORS),
  potential_wall_z: z.boolean(),
  density: z.number().positive().nullish(),
  // Length is a coded rule (CELL_SIZE_MISMATCH), so only the element shape is checked here.
  cell_sides: z.array(z.number().positive()).nullish(),
  construction_order: z.enum(CONSTRUCTION_ORDERS),
});
export type SystemSetupBody = z.infer<typeof systemSetupBody>;

/** The first system setup rule a body breaks, or null. */
export function systemSetupProblem(body: SystemSetupBody): RuleProblem | null {
  if (body.cell_dimension_selector === "cell_sides" && body.cell_sides?.length !== 3) {
    return {
      code: PolymerBuilderSystemErrors.VALIDATE_CELL_SIZE_MISMATCH,
      args: { expected: 3, actual: body.cell_sides?.length ?? 0 },
    };
  }
  if (body.cell_dimension_selector === "density" && (body.density === undefined || body.density === null)) {
    return { code: CommonErrors.VALIDATION_ERROR, args: { field: "density", message: REQUIRED_FIELD } };
  }
  return orderedItemsProblem(body.polymers, {
    orderPositive: PolymerErrors.VALIDATE_POLYMER_ORDER_POSITIVE,
    orderDuplicate: PolymerErrors.VALIDATE_POLYMER_ORDER_DUPLICATE,
    occurrence: PolymerErrors.VALIDATE_OCCURRENCE_POSITIVE,
  });
}

export const systemSetupResponse = z.object({
  id: z.string(),
  polymers: z.array(z.object({ polymer_id: z.string(), name: z.string(), order: z.int(), occurrence: z.int() })),
  cell_dimension_selector: z.enum(CELL_DIMENSION_SELECTORS),
  density: z.number().nullable(),
  cell_sides: z.array(z.number()).nullable(),
  potential_wall_z: z.boolean(),
  construction_order: z.enum(CONSTRUCTION_ORDERS),
  /** True once the user has saved it (step 4 of the builder). */
  saved: z.boolean(),
});
export type SystemSetupResponse = z.infer<typeof systemSetupResponse>;

/** Physical bounds shown at the fields (issue 24), from the job limits the server enforces: this
 * deployment's on the web (its /config.json), the defaults of job-limits.ts otherwise. */
const number = (n: number) => n.toLocaleString("en-US");
export function boundMessages(limits: JobLimits = DEFAULT_JOB_LIMITS) {
  return {
    cellSide: `Each side must be between ${MIN_CELL_SIDE} and ${number(limits.maxCellSide)} Å (the simulation needs twice its 10 Å cutoff)`,
    density: `Density must be between ${limits.minDensity} and ${limits.maxDensity} g/cm³`,
    temperature: `Temperature must be above 0 and at most ${number(limits.maxTemperature)} K`,
    minimizationSteps: `Minimization can have at most ${number(limits.maxMinimizationSteps)} steps`,
    dynamicsSteps: `Dynamics can have at most ${number(limits.maxDynamicsSteps)} steps`,
  };
}
const DEFAULT_BOUND_MESSAGES = boundMessages();
export const CELL_SIDE_MESSAGE = DEFAULT_BOUND_MESSAGES.cellSide;
export const DENSITY_MESSAGE = DEFAULT_BOUND_MESSAGES.density;
export const TEMPERATURE_MESSAGE = DEFAULT_BOUND_MESSAGES.temperature;
export const MINIMIZATION_STEPS_MESSAGE = DEFAULT_BOUND_MESSAGES.minimizationSteps;
export const DYNAMICS_STEPS_MESSAGE = DEFAULT_BOUND_MESSAGES.dynamicsSteps;

/** A typed number outside [min, max]; text that is not a number is left to the other rules. */
function outside(text: string, min: number, max: number, minExclusive = false): boolean {
  const value = Number(text.trim());
  if (!text.trim() || !Number.isFinite(value)) return false;
  return (minExclusive ? value <= min : value < min) || value > max;
}

/** The form while typing, with the bounds of `limits`; numbers are text. */
export function systemSetupFormFor(limits: JobLimits) {
  const messages = boundMessages(limits);
  return z
    .object({
      cell_dimension_selector: z.enum(CELL_DIMENSION_SELECTORS, { error: REQUIRED_FIELD }),
      density: z.string(),
      cell_sides: z.tuple([z.string(), z.string(), z.string()]),
      potential_wall_z: z.boolean(),
      construction_order: z.enum(CONSTRUCTION_ORDERS, { error: REQUIRED_FIELD }),
      polymers: z
        .array(z.object({ polymer_id: z.string(), occurrence: atLeastOneText(SEGMENT_MESSAGES.OCCURRENCE_MIN) }))
        .min(1),
    })
    .superRefine((form, ctx) => {
      if (form.cell_dimension_selector === "density" && !form.density.trim()) {
        ctx.addIssue({ code: "custom", path: ["density"], message: REQUIRED_FIELD });
      }
      if (form.cell_dimension_selector === "density" && outside(form.density, limits.minDensity, limits.maxDensity)) {
        ctx.addIssue({ code: "custom", path: ["density"], message: messages.density });
      }
      if (form.cell_dimension_selector === "cell_sides") {
        form.cell_sides.forEach((side, index) => {
          if (!side.trim()) ctx.addIssue({ code: "custom", path: ["cell_sides", index], message: REQUIRED_FIELD });
          else if (outside(side, MIN_CELL_SIDE, limits.maxCellSide)) {
            ctx.addIssue({ code: "custom", path: ["cell_sides", index], message: messages.cellSide });
          }
        });
      }
    });
}
/** The form with the default limits. */
export const systemSetupForm = systemSetupFormFor(DEFAULT_JOB_LIMITS);
export type SystemSetupFormValues = z.input<typeof systemSetupForm>;

// ---------------------------------------------------------------------------------------------
// Simulation protocol

export const PRESSURE_MESSAGE = `Pressure must be above 0 and at most ${MAX_PRESSURE_BAR} bar`;
export const EQUILIBRATION_NEEDS_NPT_MESSAGE = "The melt equilibration ends at the chosen pressure: choose NPT";
export const EQUILIBRATION_STEPS_MESSAGE = `The melt equilibration needs at least ${MELT_EQUILIBRATION_MIN_STEPS} dynamics steps (21 stages)`;
export const DEFAULT_PRESSURE_BAR = 1;
/** A barostat scales a periodic cell: walls (a vacuum gap above the cell) have none to scale. */
export const NPT_WALLS_MESSAGE =
  "NPT and the melt equilibration need a periodic cell without walls: turn the z walls off or choose NVT";

/** Whether a saved protocol runs dynamics under a barostat (NPT, or the melt equilibration). */
export function usesBarostat(protocol: { dynamics: boolean; ensemble: string | null; equilibration?: string | null }) {
  return protocol.dynamics && (protocol.ensemble === "NPT" || protocol.equilibration === "melt_21_step");
}

/** Simulated time in ps of a number of steps. */
export function simulatedTimePs(steps: number): number {
  return (steps * TIMESTEP_FS) / 1000;
}

export const simulationProtocolBody = z
  .object({
    simulation: z.enum(SIMULATIONS),
    random_seed: int32().min(-1, RANDOM_SEED_MESSAGE),
    minimization: z.boolean(),
    minimization_steps: int32().min(1).nullish(),
    dynamics: z.boolean(),
    dynamics_steps: int32().min(1).nullish(),
    temperature: z.number().positive().nullish(),
    ensemble: z.enum(ENSEMBLES).nullish(),
    pressure: z.number().positive(PRESSURE_MESSAGE).max(MAX_PRESSURE_BAR, PRESSURE_MESSAGE).nullish(),
    equilibration: z.enum(EQUILIBRATIONS).nullish(),
  })
  .superRefine((body, ctx) => {
    if (!body.dynamics || body.equilibration !== "melt_21_step") return;
    if (body.ensemble !== "NPT") {
      ctx.addIssue({ code: "custom", path: ["equilibration"], message: EQUILIBRATION_NEEDS_NPT_MESSAGE });
    }
    if (body.dynamics_steps != null && body.dynamics_steps < MELT_EQUILIBRATION_MIN_STEPS) {
      ctx.addIssue({ code: "custom", path: ["dynamics_steps"], message: EQUILIBRATION_STEPS_MESSAGE });
    }
  });
export type SimulationProtocolBody = z.infer<typeof simulationProtocolBody>;

/** The first protocol rule a body breaks, or null: a toggle that is on needs its values. */
export function simulationProtocolProblem(body: SimulationProtocolBody): RuleProblem | null {
  if (body.minimization && body.minimization_steps == null) {
    return { code: PolymerBuilderSystemErrors.VALIDATE_MINIMIZATION_STEPS_MISSING };
  }
  if (body.dynamics) {
    const missing = (["dynamics_steps", "temperature", "ensemble", "pressure"] as const).filter(
      (f) => body[f] == null && (f !== "pressure" || body.ensemble === "NPT"),
    );
    if (missing.length) {
      return { code: PolymerBuilderSystemErrors.VALIDATE_DYNAMICS_MISSING_FIELDS, args: { fields: missing } };
    }
  }
  return null;
}

export const simulationProtocolResponse = z.object({
  id: z.string(),
  simulation: z.enum(SIMULATIONS),
  random_seed: z.int(),
  minimization: z.boolean(),
  minimization_steps: z.int().nullable(),
  dynamics: z.boolean(),
  dynamics_steps: z.int().nullable(),
  temperature: z.number().nullable(),
  ensemble: z.enum(ENSEMBLES).nullable(),
  pressure: z.number().nullable(),
  equilibration: z.enum(EQUILIBRATIONS),
});
export type SimulationProtocolResponse = z.infer<typeof simulationProtocolResponse>;

/** Protocol defaults of a new draft: a short minimisation and NVT dynamics at room temperature. */
export const DEFAULT_SIMULATION_PROTOCOL: Omit<SimulationProtocolResponse, "id"> = {
  simulation: "MD",
  random_seed: -1,
  minimization: true,
  minimization_steps: 1000,
  dynamics: true,
  dynamics_steps: 5000,
  temperature: 300,
  ensemble: "NVT",
  pressure: DEFAULT_PRESSURE_BAR,
  equilibration: "none",
};

/** The protocol form while typing, with the bounds of `limits`; a field behind a toggle that is
 * off is not checked. */
export function simulationProtocolFormFor(limits: JobLimits) {
  const messages = boundMessages(limits);
  return z
    .object({
      simulation: z.enum(SIMULATIONS, { error: REQUIRED_FIELD }),
      random_seed: z
        .string()
        .trim()
        .min(1, REQUIRED_FIELD)
        .refine((v) => Number.parseInt(v, 10) >= -1, RANDOM_SEED_MESSAGE),
      minimization: z.boolean(),
      minimization_steps: z.string(),
      dynamics: z.boolean(),
      dynamics_steps: z.string(),
      temperature: z.string(),
      ensemble: z.string(),
      pressure: z.string(),
      equilibration: z.enum(EQUILIBRATIONS),
    })
    .superRefine((form, ctx) => {
      const required = (field: keyof typeof form) =>
        String(form[field]).trim() || ctx.addIssue({ code: "custom", path: [field], message: REQUIRED_FIELD });
      if (form.minimization) required("minimization_steps");
      if (form.minimization && outside(form.minimization_steps, 1, limits.maxMinimizationSteps)) {
        ctx.addIssue({ code: "custom", path: ["minimization_steps"], message: messages.minimizationSteps });
      }
      if (form.dynamics) {
        required("dynamics_steps");
        required("temperature");
        if (outside(form.dynamics_steps, 1, limits.maxDynamicsSteps)) {
          ctx.addIssue({ code: "custom", path: ["dynamics_steps"], message: messages.dynamicsSteps });
        }
        if (outside(form.temperature, 0, limits.maxTemperature, true)) {
          ctx.addIssue({ code: "custom", path: ["temperature"], message: messages.temperature });
        }
        if (!(ENSEMBLES as readonly string[]).includes(form.ensemble)) {
          ctx.addIssue({ code: "custom", path: ["ensemble"], message: REQUIRED_FIELD });
        }
        if (form.ensemble === "NPT") {
          const pressure = Number(form.pressure);
          if (!form.pressure.trim()) required("pressure");
          else if (!(pressure > 0 && pressure <= MAX_PRESSURE_BAR)) {
            ctx.addIssue({ code: "custom", path: ["pressure"], message: PRESSURE_MESSAGE });
          }
        }
        if (form.equilibration === "melt_21_step") {
          if (form.ensemble !== "NPT") {
            ctx.addIssue({ code: "custom", path: ["equilibration"], message: EQUILIBRATION_NEEDS_NPT_MESSAGE });
          }
          const steps = Number.parseInt(form.dynamics_steps, 10);
          if (Number.isFinite(steps) && steps < MELT_EQUILIBRATION_MIN_STEPS) {
            ctx.addIssue({ code: "custom", path: ["dynamics_steps"], message: EQUILIBRATION_STEPS_MESSAGE });
          }
        }
      }
    });
}
/** The protocol form with the default limits. */
export const simulationProtocolForm = simulationProtocolFormFor(DEFAULT_JOB_LIMITS);
export type SimulationProtocolFormValues = z.input<typeof simulationProtocolForm>;
