/** Enumerations of SPEC §3 and §4 shared by web, server and the engine's job schema. */
export const BLOCK_TYPES = ["linear", "dendrimer", "aminoacid"] as const;
export type BlockType = (typeof BLOCK_TYPES)[number];
export const CREATABLE_BLOCK_TYPES = ["linear", "dendrimer"] as const;

export const SYSTEM_ORIGINS = ["polymer_builder", "upload", "smiles"] as const;

export const SYSTEM_TYPES = ["molecule", "system", "mixed", "not_defined"] as const;
export type SystemType = (typeof SYSTEM_TYPES)[number];

export const SEGMENT_TYPES = [
  "linear_block",
  "linear_random",
  "linear_peptide",
  "dendrimer_from_central_unit",
  "dendrimer_from_rep_unit",
] as const;
export type SegmentType = (typeof SEGMENT_TYPES)[number];

export const FORCE_FIELDS = ["gaff", "gaff2", "glycam_06j", "extended_glycam_06j"] as const;
export type ForceField = (typeof FORCE_FIELDS)[number];

/** SPEC lists NVE and NVT; NPT (Monte Carlo barostat) is issue 22's addition. */
export const ENSEMBLES = ["NVE", "NVT", "NPT"] as const;
export type Ensemble = (typeof ENSEMBLES)[number];
/** How the dynamics steps are spent: as one run in the ensemble, or on the 21-stage
 * compression/decompression equilibration of melts (the engine's simulate/equilibration.py). */
export const EQUILIBRATIONS = ["none", "melt_21_step"] as const;
export type Equilibration = (typeof EQUILIBRATIONS)[number];
/** How the engine sets the configuration of prochiral backbone centres (a vinyl unit's CHX), per
 * polymer (issue 22): Bernoullian atactic with a meso fraction, isotactic, syndiotactic, or as the
 * unit's SMILES draws it. */
export const TACTICITIES = ["atactic", "isotactic", "syndiotactic", "as_drawn"] as const;
export type Tacticity = (typeof TACTICITIES)[number];
export const CONSTRUCTION_ORDERS = ["as_listed_in_components", "random"] as const;
export const CELL_DIMENSION_SELECTORS = ["cell_sides", "density"] as const;

export const EXECUTION_STATUSES = [
  "not_submitted",
  "waiting_for_resources",
  "processing",
  "running",
  "completed",
  "failed",
  "cancelled",
  "error",
] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];
