import type { MolecularSystemData, MolecularSystemDetailsForm } from "@polyforge/contracts/molecular-systems";
import type { SystemWithExecutions } from "@polyforge/contracts/system-executions";
import { api } from "../../lib/api/client";
import { SYSTEMS_QUERY_KEY } from "../../lib/api/systems";
import { type UploadTarget, uploadTargetAt } from "../../lib/uploads/uploadTarget";

/** A system from a file or a structure: its system_data is SPEC §3's upload/smiles shape. */
export type MolecularSystem = Omit<SystemWithExecutions, "system_data"> & { system_data: MolecularSystemData };

const systemPath = (id: string) => `/systems/${encodeURIComponent(id)}`;

// The same key as the systems feature's detail query: one cached copy, refreshed by any notification.
export const molecularSystemQueryKey = (id: string) => [...SYSTEMS_QUERY_KEY, "detail", id] as const;
export const structurePdbQueryKey = (id: string, file: string) =>
  [...SYSTEMS_QUERY_KEY, "structure", id, file] as const;

export const createMolecularSystem = (body: MolecularSystemDetailsForm) => api.post<{ id: string }>("/systems", body);
export const fetchMolecularSystem = (id: string) => api.get<MolecularSystem>(systemPath(id));
export const saveSmiles = (id: string, smiles: string) => api.post<unknown>(`${systemPath(id)}/smiles`, { smiles });

/** The PDB the viewer shows (the converted structure, or the validated file as PDB). */
export async function fetchStructurePdb(id: string): Promise<string> {
  const blob = await api.get<Blob>(`${systemPath(id)}/structure`, { responseType: "blob" });
  return blob.text();
}

/** The upload calls of a system's structure file (SPEC §7). */
export const systemUploadTarget = (id: string): UploadTarget => uploadTargetAt(`${systemPath(id)}/upload`);
