import type { BuildingBlock } from "@polyforge/contracts/building-blocks";
import type { MolecularSystemData } from "@polyforge/contracts/molecular-systems";
import type { PotentialResponse } from "@polyforge/contracts/potentials";
import type { SystemExecution, SystemWithExecutions } from "@polyforge/contracts/system-executions";

/** A linear building block as the API answers it: ethylene with hydrogen ends, published
 * (not a draft), unless `overrides` say otherwise. */
export function linearBlock(id: string, name: string, overrides: Partial<BuildingBlock> = {}): BuildingBlock {
  return {
    id,
    name,
    type: "linear",
    description: null,
    version: 0,
    draft: false,
    archived: false,
    created_at: "2026-03-04T10:00:00Z",
    updated_at: "2026-03-04T10:00:00Z",
    data: { repeating_unit: "[*:1]CC[*:2]", head_repeating_unit: "[*:2][H]", tail_repeating_unit: "[*:1][H]" },
    ...overrides,
  } as BuildingBlock;
}

/** A finished polymer-builder system as GET /systems answers it, with no runs and no potentials
 * unless `overrides` give some. */
export function builtSystem(
  fields: Pick<SystemWithExecutions, "id" | "name" | "sanitized_name"> & Partial<SystemWithExecutions>,
): SystemWithExecutions {
  return {
    description: "",
    origin: "polymer_builder",
    type: "system",
    is_draft: false,
    system_data: {},
    created_at: "2026-11-20T10:00:00Z",
    updated_at: "2026-11-21T10:00:00Z",
    potentials: [],
    system_executions: [],
    ...fields,
  };
}

/** A run as GET /systems lists it: running dynamics, no error and no files yet, unless `overrides`
 * say otherwise. */
export function runningExecution(overrides: Partial<SystemExecution> = {}): SystemExecution {
  return {
    id: "run-1",
    status: "running",
    progress: 10,
    stage: "dynamics",
    seed: 7,
    versions: {},
    error_code: null,
    error_message: null,
    result_files: [],
    created_at: "2026-11-21T10:00:00Z",
    started_at: "2026-11-21T10:00:01Z",
    finished_at: null,
    updated_at: "2026-11-21T10:00:02Z",
    ...overrides,
  };
}

type MolecularSystem = Omit<SystemWithExecutions, "system_data"> & { system_data: MolecularSystemData };

/** A molecular system (from a SMILES or an uploaded file) as GET /systems/:id answers it: no file,
 * structure or problem yet unless `data` gives them. */
export function molecularSystem(
  fields: Pick<MolecularSystem, "id" | "name" | "sanitized_name" | "origin" | "type">,
  data: Partial<MolecularSystemData> & Pick<MolecularSystemData, "status">,
): MolecularSystem {
  return {
    ...fields,
    description: "",
    is_draft: false,
    created_at: "2026-11-25T10:00:00Z",
    updated_at: "2026-11-25T10:00:00Z",
    potentials: [],
    system_executions: [],
    system_data: {
      smiles: null,
      file: null,
      file_size: null,
      upload_id: null,
      structure: null,
      problem: null,
      ...data,
    },
  };
}

type PotentialGeneration = NonNullable<PotentialResponse["potential_execution"]>;

/** A potential's generation job as the API answers it, at `status` and `progress`: no stage, error,
 * files or times unless `overrides` give them. */
export function potentialGeneration(
  fields: Pick<PotentialGeneration, "status" | "progress">,
  overrides: Partial<PotentialGeneration> = {},
): PotentialGeneration {
  return {
    ...fields,
    stage: null,
    error_code: null,
    error_message: null,
    scheduler_reason: null,
    result_files: [],
    result: null,
    started_at: null,
    finished_at: null,
    ...overrides,
  };
}
