import { z } from "zod";
import { INT32_MAX, text } from "./bounds";
import { EXECUTION_STATUSES, type ExecutionStatus, SYSTEM_TYPES } from "./enums";
import { DESCRIPTION_MAX, FILE_UPLOAD_STATUSES, type FileUploadStatus, structureProblem } from "./molecular-systems";
import { normalizeOrganization } from "./organizations";
import { resultFile } from "./system-executions";
import { REQUIRED_FIELD } from "./users";

/**
 * Potentials of a system from a file or a SMILES (SPEC §2 Add molecular system → Potentials, §3
 * Potential, §4 Potential statuses, §5 Potential (generate) / (upload), §6, §7, §9; issue 21).
 * A potential is generated (GAFF/GAFF2 by the engine's generate-potential, a job like processing)
 * or uploaded (a GROMACS .top through the multipart upload calls, checked by validate-topology).
 */

/** SPEC §3: a potential's origin. */
export const POTENTIAL_ORIGINS = ["generate", "upload"] as const;

/** SPEC §9: force fields of a generated potential. */
export const POTENTIAL_FORCE_FIELDS = ["GAFF", "GAFF2"] as const;
export type PotentialForceField = (typeof POTENTIAL_FORCE_FIELDS)[number];

/** SPEC §6: the organization decides the force fields — the cosmetics company gets GAFF2 only,
 * everyone else (the product's own company, other, missing or unknown) both. */
export function potentialForceFieldsFor(organization: unknown): readonly PotentialForceField[] {
  return normalizeOrganization(organization) === "cosmetics" ? ["GAFF2"] : POTENTIAL_FORCE_FIELDS;
}

/** SPEC §5/§9 defaults of the Generate form. */
export const POTENTIAL_DEFAULTS = { force_field: "GAFF2", charge: "0", minimization_steps: "5" } as const;

/** The net charge a generated potential may ask for (a whole system: ions and charged chains). */
export const MAX_ABS_NET_CHARGE = 10_000;

/** SPEC §5 messages. */
export const VALID_NUMBER_MESSAGE = "Must be a valid number";
export const WHOLE_NUMBER_MESSAGE = "Must be a whole number";
export const AT_LEAST_ZERO_MESSAGE = "Must be at least 0";
export const DRAFT_POTENTIAL_MESSAGE = "Finish your draft potential before creating a new one";
/** SPEC §8 toasts. */
export const POTENTIAL_DELETED_MESSAGE = "Potential deleted";
export const CREATE_POTENTIAL_FAILED_MESSAGE = "There was a problem creating the potential";
export const DELETE_POTENTIAL_FAILED_MESSAGE = "There was a problem deleting the potential";

const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)$/;

/** How the OpenAPI document states a whole-number input: an integer within the bounds, or its
 * digits as text (those of fewer digits than the bounds', which are always within them). */
function documentedWholeNumber(min: number, max: number) {
  const digits = String(Math.min(Math.abs(min) || Math.abs(max), Math.abs(max))).length - 1;
  return {
    anyOf: [
      { type: "integer", minimum: min, maximum: max },
      { type: "string", pattern: `^${min < 0 ? "[+-]" : "[+]"}?[0-9]{1,${Math.max(1, digits)}}$` },
    ],
  };
}

/** A whole number typed in a field or sent as a number: trimmed; 'Required field', 'Must be a valid
 * number', 'Must be a whole number', then the bounds. */
function wholeNumberInput(min: number, max: number, minMessage?: string) {
  const input = z.union([z.number(), text().max(40)]).meta(documentedWholeNumber(min, max));
  return input.transform((value, ctx) => {
    const trimmed = typeof value === "string" ? value.trim() : value;
    if (trimmed === "") {
      ctx.addIssue({ code: "custom", message: REQUIRED_FIELD });
      return z.NEVER;
    }
    if (typeof trimmed === "string" && !NUMBER_TEXT.test(trimmed)) {
      ctx.addIssue({ code: "custom", message: VALID_NUMBER_MESSAGE });
      return z.NEVER;
    }
    const number = Number(trimmed);
    if (!Number.isFinite(number)) {
      ctx.addIssue({ code: "custom", message: VALID_NUMBER_MESSAGE });
      return z.NEVER;
    }
    if (!Number.isInteger(number)) {
      ctx.addIssue({ code: "custom", message: WHOLE_NUMBER_MESSAGE });
      return z.NEVER;
    }
    if (number < min) {
      ctx.addIssue({ code: "custom", message: minMessage ?? `Must be at least ${min.toLocaleString("en-US")}` });
      return z.NEVER;
    }
    if (number > max) {
      ctx.addIssue({ code: "custom", message: `Must be at most ${max.toLocaleString("en-US")}` });
      return z.NEVER;
    }
    return number;
  });
}

/** SPEC §5: charge required, trimmed, a number, whole. A number or a numeric string on the wire. */
export const netChargeInput = wholeNumberInput(-MAX_ABS_NET_CHARGE, MAX_ABS_NET_CHARGE);
/** SPEC §5/§9: minimisation steps required, whole, at least 0 (the server's job limit caps it). */
export const minimizationStepsInput = wholeNumberInput(0, INT32_MAX, AT_LEAST_ZERO_MESSAGE);

export const potentialNameSchema = text().trim().min(1, REQUIRED_FIELD).max(255);
const descriptionSchema = text().trim().max(DESCRIPTION_MAX).default("");

/** POST /v2/systems/{systemId}/potentials/ body, origin generate (SPEC §7). */
export const generatePotentialBody = z.object({
  origin: z.literal("generate"),
  name: potentialNameSchema,
  description: descriptionSchema,
  force_field: z.enum(POTENTIAL_FORCE_FIELDS, { error: REQUIRED_FIELD }),
  charge: netChargeInput,
  minimization_steps: minimizationStepsInput,
});
/** POST /v2/systems/{systemId}/potentials/ body, origin upload: the .top follows through the
 * potential's upload calls. */
export const uploadPotentialBody = z.object({
  origin: z.literal("upload"),
  name: potentialNameSchema,
  description: descriptionSchema,
});
export const createPotentialBody = z.discriminatedUnion("origin", [generatePotentialBody, uploadPotentialBody]);
export type CreatePotentialBody = z.infer<typeof createPotentialBody>;
export type CreatePotentialInput = z.input<typeof createPotentialBody>;

/** The Generate form (fields as typed; the force field offered by organization). */
export const generatePotentialForm = generatePotentialBody.omit({ origin: true });
export type GeneratePotentialFormInput = z.input<typeof generatePotentialForm>;
/** The Upload form's fields besides the file (SPEC §5: name required; a .top file required). */
export const uploadPotentialForm = uploadPotentialBody.omit({ origin: true });

/** SPEC §3 antechamber_potential: what a generated potential was asked for. */
export const antechamberPotential = z.object({
  force_field: z.enum(POTENTIAL_FORCE_FIELDS),
  charge: z.number().int(),
  minimization_steps: z.number().int(),
});
export type AntechamberPotential = z.infer<typeof antechamberPotential>;

/** One kind of molecule of a generated potential: its copies, charges and atom types. */
export const potentialMoleculeKind = z.object({
  name: z.string(),
  copies: z.number().int(),
  atoms: z.number().int(),
  net_charge: z.number().int(),
  min_atom_charge: z.number(),
  max_atom_charge: z.number(),
  /** The force field's atom types used in this kind (GAFF/GAFF2; TIP3P and ion types for water and ions). */
  atom_types: z.array(z.string()),
});
export type PotentialMoleculeKind = z.infer<typeof potentialMoleculeKind>;

/** What generate-potential found (null until completed). Energies in kJ/mol. */
export const generatedPotentialResult = z.object({
  force_field: z.string(),
  atoms: z.number().int(),
  molecules: z.number().int(),
  total_charge: z.number(),
  charge_method: z.string(),
  kinds: z.array(potentialMoleculeKind),
  energy_before_minimization_kj_mol: z.number().nullable(),
  minimized_energy_kj_mol: z.number().nullable(),
});
export type GeneratedPotentialResult = z.infer<typeof generatedPotentialResult>;

/** SPEC §3 potential_execution: the generation job's status (SPEC §4 execution statuses). */
export const potentialExecution = z.object({
  status: z.enum(EXECUTION_STATUSES),
  /** 0–100 */
  progress: z.number(),
  stage: z.string().nullable(),
  error_code: z.string().nullable(),
  error_message: z.string().nullable(),
  /** Why a cluster's scheduler keeps the job waiting (Slurm), else null. */
  scheduler_reason: z.string().nullable(),
  /** The files of the zip (GET …/potentials/{id}/files) once completed. */
  result_files: z.array(resultFile),
  result: generatedPotentialResult.nullable(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
});

/** What validate-topology found in a valid .top. */
export const topologySummary = z.object({
  atoms: z.number().int(),
  molecules: z.number().int(),
  molecule_types: z.array(z.string()),
});

/** SPEC §3 uploaded_potential: status (SPEC §4 file upload statuses), file, file_size, upload_id;
 * `problem` says why it is invalid (engine code, message naming the line), `topology` what a valid
 * one holds. */
export const uploadedPotential = z.object({
  status: z.enum(FILE_UPLOAD_STATUSES),
  file: z.string().nullable(),
  file_size: z.number().int().nullable(),
  upload_id: z.string().nullable(),
  problem: structureProblem.nullable(),
  topology: topologySummary.nullable(),
});
export type UploadedPotential = z.infer<typeof uploadedPotential>;

/** A potential as every potentials call answers it (SPEC §3). Exactly one of
 * antechamber_potential + potential_execution (generate) or uploaded_potential (upload) is set. */
export const potentialResponse = z.object({
  id: z.string(),
  system_id: z.string(),
  name: z.string(),
  description: z.string(),
  origin: z.enum(POTENTIAL_ORIGINS),
  /** The system type of the structure it parametrises (the catalogue's nested rows show it). */
  system_type: z.enum(SYSTEM_TYPES),
  /** An uploaded potential whose file is not complete yet (SPEC: one draft at a time). */
  is_draft: z.boolean(),
  antechamber_potential: antechamberPotential.nullable(),
  potential_execution: potentialExecution.nullable(),
  uploaded_potential: uploadedPotential.nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type PotentialResponse = z.infer<typeof potentialResponse>;

/** GET /v2/systems/{systemId}/potentials/: the system's potentials, oldest first. */
export const potentialsList = z.object({ data: z.array(potentialResponse) });
export type PotentialsList = z.infer<typeof potentialsList>;

/** SPEC §4: a draft is an uploaded potential still waiting for its file. */
export const DRAFT_UPLOAD_STATUSES: readonly FileUploadStatus[] = ["pending_upload", "uploading"];

/** The status a potential's tag shows: the execution's (generate) or the upload's (upload). */
export function potentialStatus(
  potential: Pick<PotentialResponse, "potential_execution" | "uploaded_potential">,
): ExecutionStatus | FileUploadStatus {
  return potential.potential_execution?.status ?? potential.uploaded_potential?.status ?? "not_submitted";
}

/** Execution statuses from which a generation can be cancelled (SPEC §4). */
export const CANCELLABLE_POTENTIAL_STATUSES: readonly ExecutionStatus[] = [
  "waiting_for_resources",
  "processing",
  "running",
];

/** The zip of a completed generated potential (GROMACS .top/.itp/.gro, Amber prmtop/inpcrd, the
 * antechamber and parmchk2 output, the minimised structure, README). */
export function potentialZipName(sanitizedName: string): string {
  return `${sanitizedName}_files.zip`;
}
