import { z } from "zod";
import { SYSTEM_TYPES } from "./enums";
import { systemNameSchema } from "./systems";
import { REQUIRED_FIELD } from "./users";

/**
 * Systems from an uploaded .pdb/.gro file or a drawn or typed SMILES (SPEC §2 Add molecular system,
 * §3 system_data for upload or smiles, §4 statuses, §7 calls). The server keeps what the engine's
 * validate-structure / convert-smiles found in `system_data.structure`.
 */

/** Origins a user may create through POST /v2/systems (polymer_builder goes through the draft). */
export const MOLECULAR_SYSTEM_ORIGINS = ["upload", "smiles"] as const;
export type MolecularSystemOrigin = (typeof MOLECULAR_SYSTEM_ORIGINS)[number];

/** SPEC §4: statuses of a system file upload. */
export const FILE_UPLOAD_STATUSES = [
  "pending_upload",
  "uploading",
  "pending_validation",
  "validating",
  "valid",
  "invalid",
  "error",
] as const;
export type FileUploadStatus = (typeof FILE_UPLOAD_STATUSES)[number];

/** SPEC §4: statuses of a SMILES conversion. */
export const CONVERSION_STATUSES = ["pending", "converting", "converted", "failed", "error"] as const;
export type ConversionStatus = (typeof CONVERSION_STATUSES)[number];

export const DESCRIPTION_MAX = 2000;
/** A structure is a molecule or a few, not a polymer melt: the SMILES text is bounded before parsing. */
export const SMILES_MAX_LENGTH = 2000;

/** POST /v2/systems body (SPEC §5 Molecular system details: name required; origin required). */
export const createMolecularSystemBody = z.object({
  name: systemNameSchema,
  description: z.string().trim().max(DESCRIPTION_MAX).default(""),
  // Any origin string is accepted here so that polymer_builder answers ORIGIN_NOT_ALLOWED, not a
  // generic validation error; the service checks it against MOLECULAR_SYSTEM_ORIGINS, which the
  // OpenAPI document names.
  origin: z
    .string()
    .min(1, REQUIRED_FIELD)
    .max(50)
    .meta({ enum: [...MOLECULAR_SYSTEM_ORIGINS] }),
});
export type CreateMolecularSystemBody = z.infer<typeof createMolecularSystemBody>;
export const createMolecularSystemResponse = z.object({ id: z.string() });

/** The Details step's form. */
export const molecularSystemDetailsForm = z.object({
  name: systemNameSchema,
  description: z.string().trim().max(DESCRIPTION_MAX),
  origin: z.enum(MOLECULAR_SYSTEM_ORIGINS, { error: REQUIRED_FIELD }),
});
export type MolecularSystemDetailsForm = z.infer<typeof molecularSystemDetailsForm>;

/** A structure from SMILES is a molecule or a few (a ligand, a solvent mix), not a polymer: at most
 * this many atoms, hydrogens included. The engine's convert-smiles holds the same limit (MAX_ATOMS);
 * the server refuses a larger one before RDKit reads it (the text's atoms) and after (with its
 * hydrogens), so no job is queued for it. */
export const MAX_DRAWN_SMILES_ATOMS = 1000;

/** The engine's message for a SMILES past MAX_DRAWN_SMILES_ATOMS: `atoms` counted with hydrogens,
 * or (`written`) the atoms written in the text, a lower bound of that. */
export function drawnSmilesTooLargeMessage(atoms: number, counted: "with hydrogens" | "written"): string {
  const described =
    counted === "written"
      ? `at least ${atoms.toLocaleString("en")} atoms`
      : `${atoms.toLocaleString("en")} atoms with its hydrogens`;
  return (
    `The SMILES describes ${described}; a structure from SMILES holds at most ` +
    `${MAX_DRAWN_SMILES_ATOMS.toLocaleString("en")} (a molecule or a few). Build polymers with the polymer builder, ` +
    "or upload a .pdb or .gro file of a larger system."
  );
}

export const INVALID_SMILES_MESSAGE = "Invalid SMILES format";
export const FINISH_SMILES_EDIT_MESSAGE = "Please finish editing the SMILES before saving";
export const PROVIDE_STRUCTURE_MESSAGE = "Please provide a molecular structure before saving";

/** POST /v2/systems/{systemId}/smiles body. */
export const smilesBody = z.object({
  smiles: z.string().trim().min(1, REQUIRED_FIELD).max(SMILES_MAX_LENGTH),
});

/** One kind of molecule found in a structure (molecules with the same graph are one kind). */
export const moleculeKind = z.object({
  name: z.string(),
  count: z.number().int(),
  atoms: z.number().int(),
  formula: z.string(),
  /** Net formal charge, where the structure tells it (SMILES, or a PDB with charges). */
  charge: z.number().int().nullable(),
});
export type MoleculeKind = z.infer<typeof moleculeKind>;

/** What validate-structure or convert-smiles found, kept in system_data.structure. */
export const structureSummary = z.object({
  atoms: z.number().int(),
  residues: z.number().int(),
  molecules: z.number().int(),
  kinds: z.array(moleculeKind),
  formula: z.string(),
  net_charge: z.number().int().nullable(),
  /** Cell edges in Å (A, B, C), or null when the file has none. */
  box: z.array(z.number()).nullable(),
  type: z.enum(SYSTEM_TYPES),
  /** The structure the viewer shows, a key of the system's files (GET /v2/systems/{id}/structure). */
  viewer_file: z.string().nullable(),
});
export type StructureSummary = z.infer<typeof structureSummary>;

/** Why a file or a SMILES was refused: the engine's code, a message about the user's input, and
 * the line of the file where it went wrong when there is one. Never a server path. */
export const structureProblem = z.object({
  code: z.string(),
  message: z.string(),
  line: z.number().int().nullable(),
});
export type StructureProblem = z.infer<typeof structureProblem>;

/** system_data of an upload or smiles system (SPEC §3). */
export const molecularSystemData = z.object({
  status: z.string(),
  smiles: z.string().nullable(),
  file: z.string().nullable(),
  file_size: z.number().int().nullable(),
  upload_id: z.string().nullable(),
  structure: structureSummary.nullable(),
  problem: structureProblem.nullable(),
});
export type MolecularSystemData = z.infer<typeof molecularSystemData>;

/** Save structure is disabled while converting or once converted (SPEC §4 Structure-based system). */
export function canSaveStructure(status: string | null | undefined): boolean {
  return status !== "converting" && status !== "converted";
}

/** SPEC §4: the Potentials step opens once the structure is converted (smiles) or valid (file). */
export function potentialsStepEnabled(origin: string, status: string | null | undefined): boolean {
  return (origin === "smiles" && status === "converted") || (origin === "upload" && status === "valid");
}

/** SPEC §4 File-based system: the uploader is locked in these statuses. */
export const UPLOADER_LOCKED_STATUSES: readonly string[] = ["uploading", "pending_validation", "validating", "valid"];

/** SPEC §4 badges, by status. */
export const STRUCTURE_BADGES: Record<ConversionStatus, string | null> = {
  pending: null,
  converting: "Validating structure",
  converted: "Structure validated",
  failed: "Structure validation failed",
  error: "Structure validation failed",
};
export function fileBadge(status: string, percent: number): string | null {
  switch (status) {
    case "uploading":
      return `Uploading file ${percent}%`;
    case "pending_validation":
    case "validating":
      return "Validating file";
    case "valid":
      return "File validated";
    case "invalid":
      return "Invalid file";
    case "error":
      return "File validation failed";
    default:
      return null;
  }
}
