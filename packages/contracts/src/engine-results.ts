/**
 * The engine's output as the server reads it (ARCHITECTURE §6): which status a progress stage shows,
 * and each command's result payload. Results are read leniently on purpose: a field an older engine
 * does not report gets its "unknown" value instead of failing a job that otherwise succeeded.
 */
import { z } from "zod";
import stages from "./engine-stages.json";
import { SYSTEM_TYPES } from "./enums";
import { type MoleculeKind, moleculeKind } from "./molecular-systems";
import type { GeneratedPotentialResult, PotentialMoleculeKind } from "./potentials";

/** Stages whose name starts with one of these (e.g. 'equilibration stage 3 of 21: NPT …') are the
 * simulation proper; engine/tests checks every stage the engine emits against engine-stages.json. */
export const RUNNING_STAGE_PREFIXES: readonly string[] = stages.running;
export const PROCESSING_STAGES: readonly string[] = stages.processing;

/** ARCHITECTURE §7: building and parametrising show as processing, minimisation and MD as running. */
export function executionStatusForStage(stage: string): "processing" | "running" {
  return RUNNING_STAGE_PREFIXES.some((prefix) => stage.startsWith(prefix)) ? "running" : "processing";
}

const integerOr = (fallback: number) => z.number().int().catch(fallback);
const integerOrNull = z.number().int().nullable().catch(null);
const numberOrNull = z.number().nullable().catch(null);
const textOr = (fallback: string) => z.string().catch(fallback);
const nonEmptyTextOrNull = z.string().min(1).nullable().catch(null);

/** `schema`, or what it makes of an empty object when the value does not fit. */
function orDefaults<T extends z.ZodType>(schema: T) {
  return schema.catch(() => schema.parse({}));
}

/** An array's entries that match `item`; anything else (or no array) reads as none. */
function validEntries<T>(item: z.ZodType<T>) {
  return z
    .array(z.unknown())
    .catch([])
    .transform((entries) =>
      entries.flatMap((entry) => {
        const parsed = item.safeParse(entry);
        return parsed.success ? [parsed.data] : [];
      }),
    );
}

/** A refusal the engine reports as a result (`valid: false`): a file that is not what it claims. */
function refusalFields(defaultCode: string) {
  return {
    valid: z.boolean().optional().catch(undefined),
    error_code: textOr(defaultCode),
    message: z.string().optional().catch(undefined),
    line: integerOrNull,
  };
}

/** validate-structure's and convert-smiles's payload: the structure found. */
export const structureResultPayload = z.object({
  ...refusalFields("INVALID_STRUCTURE"),
  viewer_file: nonEmptyTextOrNull,
  files: z.array(z.string()).catch([]),
  atoms: integerOr(0),
  residues: integerOr(0),
  molecules: integerOr(0),
  kinds: validEntries<MoleculeKind>(moleculeKind),
  formula: textOr(""),
  net_charge: integerOrNull,
  box: z.tuple([z.number(), z.number(), z.number()]).nullable().catch(null),
  type: z.enum(SYSTEM_TYPES).catch("not_defined"),
});
export type StructureResultPayload = z.infer<typeof structureResultPayload>;

/** validate-topology's payload: what the uploaded .top describes. */
export const topologyResultPayload = z.object({
  ...refusalFields("INVALID_TOPOLOGY"),
  atoms: integerOr(0),
  molecules: integerOr(0),
  molecule_types: z
    .array(z.unknown())
    .catch([])
    .transform((types) => types.map(String)),
});
export type TopologyResultPayload = z.infer<typeof topologyResultPayload>;

const potentialKindPayload = z.object({
  name: textOr(""),
  copies: integerOr(0),
  atoms: integerOr(0),
  net_charge: integerOr(0),
  min_atom_charge: z.number().catch(0),
  max_atom_charge: z.number().catch(0),
  atom_types: z
    .array(z.unknown())
    .catch([])
    .transform((types) => types.map(String)),
});

/** A kind entry that is not an object reads as a kind with every field unknown. */
const anyPotentialKind = orDefaults(potentialKindPayload);

const chargesPayload = z.object({
  total_charge: z.number().catch(0),
  method: textOr(""),
  molecules: z
    .array(z.unknown())
    .catch([])
    .transform((kinds): PotentialMoleculeKind[] => kinds.map((kind) => anyPotentialKind.parse(kind))),
});

const energiesPayload = z.object({
  potential_before_minimization_kj_mol: numberOrNull,
  potential_after_minimization_kj_mol: numberOrNull,
});

/** The part of build-system's and generate-potential's bundle summary the server keeps. */
const summaryPayload = z.object({
  seed: integerOrNull,
  force_field: textOr(""),
  atoms: integerOr(0),
  molecules: integerOr(0),
  charges: orDefaults(chargesPayload),
  energies: orDefaults(energiesPayload),
});

/** build-system's and generate-potential's payload (the files are read by storeResultFiles). */
export const bundleResultPayload = z.object({
  seed: integerOrNull,
  summary: orDefaults(summaryPayload),
});
export type BundleResultPayload = z.infer<typeof bundleResultPayload>;

/** The seed a run used, from the payload or its summary. */
export function seedOfBundle(payload: BundleResultPayload): number | null {
  return payload.seed ?? payload.summary.seed;
}

/** generate-potential's summary as the Potentials step shows it. */
export function generatedPotentialOf(payload: BundleResultPayload): GeneratedPotentialResult {
  const { summary } = payload;
  return {
    force_field: summary.force_field,
    atoms: summary.atoms,
    molecules: summary.molecules,
    total_charge: summary.charges.total_charge,
    charge_method: summary.charges.method,
    kinds: summary.charges.molecules,
    energy_before_minimization_kj_mol: summary.energies.potential_before_minimization_kj_mol,
    minimized_energy_kj_mol: summary.energies.potential_after_minimization_kj_mol,
  };
}
