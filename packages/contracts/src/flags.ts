/** Feature flags of SPEC §2/§6, evaluated with the user's email and organization as attributes. */
export const FLAGS = {
  PEPTIDE_BUILDER: "peptide-builder",
  MODELING_COMPUTE: "modeling-compute",
  ADD_MOLECULAR_SYSTEM: "add-molecular-system",
  GENERATE_POTENTIAL: "generate-potential",
} as const;
export type FlagName = (typeof FLAGS)[keyof typeof FLAGS];
