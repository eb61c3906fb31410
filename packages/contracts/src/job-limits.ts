import { z } from "zod";
import type { EngineJob } from "./engine-job";
import { dummyAtoms, smilesAtomCount } from "./smiles/connection-rules";

/**
 * What one processing job may ask of the server (issue 23: 10^7 chains, a 1e308 Å cell, 1e308 K and
 * 2^31−1 MD steps were all accepted, and the engine grew until stopped). The server's settings
 * (POLYFORGE_MAX_*) give the limits; these are their defaults.
 */
export interface JobLimits {
  /** Atoms of the whole system, hydrogens not counted (chains × units × atoms of the unit). */
  maxAtoms: number;
  /** Å; a side must also be at least twice the engine's cutoff. */
  maxCellSide: number;
  /** g/cm³ */
  minDensity: number;
  maxDensity: number;
  /** K */
  maxTemperature: number;
  maxMinimizationSteps: number;
  maxDynamicsSteps: number;
}

export const DEFAULT_JOB_LIMITS: JobLimits = {
  maxAtoms: 1_000_000,
  maxCellSide: 2_000,
  minDensity: 0.001,
  maxDensity: 5,
  maxTemperature: 5_000,
  maxMinimizationSteps: 1_000_000,
  maxDynamicsSteps: 50_000_000,
};

/** The limits as the server sends them to the web app in /config.json (this deployment's, which
 * POLYFORGE_MAX_* may set below or above the defaults). */
export const jobLimitsSchema = z.object({
  maxAtoms: z.number().int().positive(),
  maxCellSide: z.number().positive(),
  minDensity: z.number().positive(),
  maxDensity: z.number().positive(),
  maxTemperature: z.number().positive(),
  maxMinimizationSteps: z.number().int().positive(),
  maxDynamicsSteps: z.number().int().positive(),
}) satisfies z.ZodType<JobLimits>;

/** The engine's non-bonded cutoff (Å): a periodic cell side must hold twice of it. */
export const ENGINE_CUTOFF_ANGSTROM = 10;
export const MIN_CELL_SIDE = 2 * ENGINE_CUTOFF_ANGSTROM;

export interface JobLimitProblem {
  field: string;
  message: string;
}

const format = (value: number) => value.toLocaleString("en-US", { maximumFractionDigits: 3 });

/** Atoms of a unit's SMILES, connection points and explicit hydrogens not counted. */
function unitAtoms(smiles: string): number {
  const hydrogens = smiles.match(/\[(?:\d*)H\]/g)?.length ?? 0;
  return Math.max(0, smilesAtomCount(smiles) - dummyAtoms(smiles).length - hydrogens);
}

/** What the atom estimate reads of a job: the same fields the builder's draft has on the web. */
export interface AtomEstimateInput {
  blocks: ReadonlyArray<{ id: string; data: unknown }>;
  segments: ReadonlyArray<{
    id: string;
    blocks: ReadonlyArray<{ building_block_id: string }>;
    data: { total_building_blocks?: unknown };
  }>;
  polymers: ReadonlyArray<{ id: string; segments: ReadonlyArray<{ segment_id: string; occurrence: number }> }>;
}

/** Atoms of one chain of each polymer, hydrogens not counted: its segments times their building
 * blocks times the largest unit among a segment's blocks (an upper estimate). */
export function estimatedChainAtoms(input: AtomEstimateInput): Map<string, number> {
  const blockAtoms = new Map(
    input.blocks.map((block) => {
      const data = (block.data ?? {}) as Record<string, unknown>;
      const units = [data.repeating_unit, data.smiles, data.central_unit].filter(
        (s): s is string => typeof s === "string" && s.length > 0,
      );
      return [block.id, Math.max(1, ...units.map(unitAtoms))];
    }),
  );
  const segmentAtoms = new Map(
    input.segments.map((segment) => {
      const largest = Math.max(1, ...segment.blocks.map((b) => blockAtoms.get(b.building_block_id) ?? 1));
      return [segment.id, Math.max(1, Number(segment.data.total_building_blocks) || 0) * largest];
    }),
  );
  return new Map(
    input.polymers.map((polymer) => [
      polymer.id,
      polymer.segments.reduce((sum, s) => sum + s.occurrence * (segmentAtoms.get(s.segment_id) ?? 0), 0),
    ]),
  );
}

/** The atoms of the system the job describes, hydrogens not counted (the server's check). */
export function estimatedAtoms(
  job: AtomEstimateInput & { system_setup: { polymers: ReadonlyArray<{ polymer_id: string; occurrence: number }> } },
): number {
  const chainAtoms = estimatedChainAtoms(job);
  return job.system_setup.polymers.reduce((sum, p) => sum + p.occurrence * (chainAtoms.get(p.polymer_id) ?? 0), 0);
}

/** The first limit the job breaks, with a message about the user's system, or null. */
export function jobLimitProblem(job: EngineJob, limits: JobLimits = DEFAULT_JOB_LIMITS): JobLimitProblem | null {
  const atoms = estimatedAtoms(job);
  if (atoms > limits.maxAtoms) {
    return {
      field: "system_setup.polymers",
      message: `The system would have about ${format(atoms)} atoms (hydrogens not counted); this server builds at most ${format(limits.maxAtoms)}. Use fewer or shorter chains.`,
    };
  }
  const setup = job.system_setup;
  if (setup.cell_dimension_selector === "cell_sides") {
    const side = setup.cell_sides.find((s) => s < MIN_CELL_SIDE || s > limits.maxCellSide);
    if (side !== undefined) {
      return {
        field: "system_setup.cell_sides",
        message: `Each cell side must be between ${MIN_CELL_SIDE} Å (twice the ${ENGINE_CUTOFF_ANGSTROM} Å cutoff) and ${format(limits.maxCellSide)} Å; ${format(side)} Å is not.`,
      };
    }
  } else if (setup.density < limits.minDensity || setup.density > limits.maxDensity) {
    return {
      field: "system_setup.density",
      message: `The density must be between ${format(limits.minDensity)} and ${format(limits.maxDensity)} g/cm³.`,
    };
  }
  const protocol = job.simulation_protocol;
  if (protocol.temperature !== null && protocol.temperature > limits.maxTemperature) {
    return {
      field: "simulation_protocol.temperature",
      message: `The temperature can be at most ${format(limits.maxTemperature)} K.`,
    };
  }
  if (protocol.minimization && (protocol.minimization_steps ?? 0) > limits.maxMinimizationSteps) {
    return {
      field: "simulation_protocol.minimization_steps",
      message: `Minimization can have at most ${format(limits.maxMinimizationSteps)} steps.`,
    };
  }
  if (protocol.dynamics && (protocol.dynamics_steps ?? 0) > limits.maxDynamicsSteps) {
    return {
      field: "simulation_protocol.dynamics_steps",
      message: `Dynamics can have at most ${format(limits.maxDynamicsSteps)} steps.`,
    };
  }
  return null;
}
