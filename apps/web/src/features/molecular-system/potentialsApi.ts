import type { CreatePotentialInput, PotentialResponse, PotentialsList } from "@polyforge/contracts/potentials";
import { api } from "../../lib/api/client";
import { SYSTEMS_QUERY_KEY } from "../../lib/api/systems";
import { saveBlob } from "../../lib/files/saveBlob";
import { type UploadTarget, uploadTargetAt } from "../../lib/uploads/uploadTarget";

const potentialsPath = (systemId: string) => `/systems/${encodeURIComponent(systemId)}/potentials`;
const potentialPath = (systemId: string, potentialId: string) =>
  `${potentialsPath(systemId)}/${encodeURIComponent(potentialId)}`;

// Under the systems key: every notification (uploaded_potential_status_updated, the executions')
// refreshes the potentials as it does the systems (SPEC §4 Real-time updates).
export const potentialsQueryKey = (systemId: string) => [...SYSTEMS_QUERY_KEY, "potentials", systemId] as const;

export const fetchPotentials = (systemId: string) => api.get<PotentialsList>(`${potentialsPath(systemId)}/`);
export const createPotential = (systemId: string, body: CreatePotentialInput) =>
  api.post<PotentialResponse>(`${potentialsPath(systemId)}/`, body);
export const deletePotential = (systemId: string, potentialId: string) =>
  api.delete<null>(potentialPath(systemId, potentialId));

/** Stops a generation that is waiting or running (its engine is stopped). */
export const cancelPotential = (systemId: string, potentialId: string) =>
  api.delete<PotentialResponse>(`${potentialPath(systemId, potentialId)}/process/cancel`);

/** The upload calls of a potential's .top (SPEC §7), the same protocol as a system's structure file. */
export const potentialUploadTarget = (systemId: string, potentialId: string): UploadTarget =>
  uploadTargetAt(`${potentialPath(systemId, potentialId)}/upload`);

/** Downloads a completed generated potential's files as one zip, or an uploaded potential's .top. */
export async function downloadPotentialFiles(systemId: string, potentialId: string, fileName: string) {
  const blob = await api.get<Blob>(`${potentialPath(systemId, potentialId)}/files`, { responseType: "blob" });
  saveBlob(blob, fileName);
}
