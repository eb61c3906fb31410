import { z } from "zod";
import {
  BLOCK_TYPES,
  CONSTRUCTION_ORDERS,
  ENSEMBLES,
  EQUILIBRATIONS,
  FORCE_FIELDS,
  SEGMENT_TYPES,
  TACTICITIES,
} from "./enums";
import { MAX_PRESSURE_BAR } from "./protocol-bounds";

/**
 * The job snapshot the server freezes when a polymer-builder system is processed and hands to the
 * engine (`python -m polyforge_engine build-structure|build-system --input job.json`).
 * ARCHITECTURE §5 and §6. Its JSON Schema (scripts/export-engine-job-schema.ts) is committed to
 * engine/polyforge_engine/schemas/build_job.schema.json, which the engine's pydantic models mirror;
 * tests on both sides keep the three in step.
 */

const id = z.guid();
const smiles = z.string().min(1);
const count = z.int().min(1);

export const engineJobSystemSchema = z.object({
  id,
  name: z.string().min(1),
  sanitized_name: z.string().min(1),
});

const linearBlockData = z.object({
  repeating_unit: smiles,
  head_repeating_unit: smiles,
  tail_repeating_unit: smiles,
});
const dendrimerBlockData = z.object({
  central_unit: smiles,
  repeating_unit: smiles,
  capping_central_unit: smiles,
  head_repeating_unit: smiles,
  tail_repeating_unit: smiles,
});
const aminoacidBlockData = z.object({
  one_letter_code: z.string().regex(/^[A-Z]$/),
  three_letter_code: z.string().regex(/^[A-Za-z]{3}$/),
  smiles,
});

const blockBase = { id, name: z.string().min(1) };
export const engineJobBlockSchema = z.discriminatedUnion("type", [
  z.object({ ...blockBase, type: z.literal(BLOCK_TYPES[0]), data: linearBlockData }),
  z.object({ ...blockBase, type: z.literal(BLOCK_TYPES[1]), data: dendrimerBlockData }),
  z.object({ ...blockBase, type: z.literal(BLOCK_TYPES[2]), data: aminoacidBlockData }),
]);

export const engineJobSegmentSchema = z.object({
  id,
  name: z.string().min(1),
  type: z.enum(SEGMENT_TYPES),
  data: z.object({
    total_building_blocks: z.int().min(0),
    capping_type: z.enum(["synthetic", "natural"]).optional(),
    generation_number: z.int().min(0).optional(),
    mask: z.array(z.union([z.literal(0), z.literal(1)])).optional(),
  }),
  blocks: z.array(
    z.object({
      building_block_id: id,
      order: z.int().min(0),
      occurrence: count.optional(),
      ratio: count.optional(),
    }),
  ),
});

/** How the engine sets the configuration of prochiral backbone centres (enums.ts TACTICITIES). */
export const engineJobTacticitySchema = z.object({
  kind: z.enum(TACTICITIES),
  /** atactic only: probability that two consecutive centres form a meso dyad (Bernoullian); 0.5 by default */
  meso_fraction: z.number().min(0).max(1).optional(),
});

export const engineJobPolymerSchema = z.object({
  id,
  name: z.string().min(1),
  force_field: z.enum(FORCE_FIELDS),
  segments: z.array(z.object({ segment_id: id, occurrence: count, order: z.int().min(0) })).min(1),
  /** Absent in jobs frozen before tacticity could be chosen: atactic, meso fraction 0.5. */
  tacticity: engineJobTacticitySchema.optional(),
});

const systemSetupBase = {
  potential_wall_z: z.boolean(),
  construction_order: z.enum(CONSTRUCTION_ORDERS),
  polymers: z.array(z.object({ polymer_id: id, order: z.int().min(0), occurrence: count })).min(1),
};
const cellSides = z.tuple([z.number().positive(), z.number().positive(), z.number().positive()]);
/** The cell comes from a density (g/cm³, a cube) or from three sides (Å). */
export const engineJobSystemSetupSchema = z.discriminatedUnion("cell_dimension_selector", [
  z.object({
    ...systemSetupBase,
    cell_dimension_selector: z.literal("density"),
    density: z.number().positive(),
    cell_sides: cellSides.nullable(),
  }),
  z.object({
    ...systemSetupBase,
    cell_dimension_selector: z.literal("cell_sides"),
    density: z.number().positive().nullable(),
    cell_sides: cellSides,
  }),
]);

export const engineJobSimulationProtocolSchema = z.object({
  simulation: z.literal("MD"),
  /** −1 means "draw one"; the engine reports the seed it used. */
  random_seed: z.int().min(-1),
  minimization: z.boolean(),
  minimization_steps: z.int().min(0).nullable(),
  dynamics: z.boolean(),
  dynamics_steps: z.int().min(0).nullable(),
  temperature: z.number().positive().nullable(),
  ensemble: z.enum(ENSEMBLES).nullable(),
  /** bar; NPT and the equilibration's last stage. Optional: jobs frozen before NPT existed lack it. */
  pressure: z.number().positive().max(MAX_PRESSURE_BAR).nullable().optional(),
  equilibration: z.enum(EQUILIBRATIONS).optional(),
  /** Dynamics repeatable to the bit (mdrun's `-reprod`) at the cost of speed; absent: off. Not yet
   * on the saved protocol or its form: only a job written by hand asks for it. */
  bit_reproducible: z.boolean().optional(),
});

export const engineJobSchema = z.object({
  system: engineJobSystemSchema,
  blocks: z.array(engineJobBlockSchema),
  segments: z.array(engineJobSegmentSchema),
  polymers: z.array(engineJobPolymerSchema),
  system_setup: engineJobSystemSetupSchema,
  simulation_protocol: engineJobSimulationProtocolSchema,
});
export type EngineJob = z.infer<typeof engineJobSchema>;

/** The JSON Schema of what the engine accepts (input side: unknown keys are tolerated). */
export function engineJobJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(engineJobSchema, { io: "input", target: "draft-2020-12" }) as Record<string, unknown>;
}
