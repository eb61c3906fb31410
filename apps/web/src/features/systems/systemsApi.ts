import type { SystemType } from "@polyforge/contracts/enums";
import type { ListResponse } from "@polyforge/contracts/pagination";
import type { SystemExecution, SystemWithExecutions } from "@polyforge/contracts/system-executions";
import { api } from "../../lib/api/client";
import { SYSTEMS_QUERY_KEY } from "../../lib/api/systems";
import { saveBlob } from "../../lib/files/saveBlob";

export interface SystemListParams {
  page_num: number;
  page_size: number;
  type: SystemType;
  name?: string;
  /** Only the systems filed under this project. */
  project_id?: string;
}

// Every key starts with SYSTEMS_QUERY_KEY, so a notification refreshes lists and details alike.
export const systemListQueryKey = (params: SystemListParams) => [...SYSTEMS_QUERY_KEY, "list", params] as const;
export const systemQueryKey = (id: string) => [...SYSTEMS_QUERY_KEY, "detail", id] as const;
export const resultFileQueryKey = (id: string, executionId: string, name: string) =>
  [...SYSTEMS_QUERY_KEY, "file", id, executionId, name] as const;

const systemPath = (id: string) => `/systems/${encodeURIComponent(id)}`;

/** A page of systems; without a type, systems of every type. */
export const fetchSystems = (params: Omit<SystemListParams, "type"> & { type?: SystemType }) =>
  api.get<ListResponse<SystemWithExecutions>>("/systems", { query: { ...params } });

/** The systems of one project, every type, up to 100 (SPEC §9's page). */
export const projectSystemsQueryKey = (projectId: string) => [...SYSTEMS_QUERY_KEY, "project", projectId] as const;
export const fetchProjectSystems = (projectId: string) =>
  fetchSystems({ project_id: projectId, page_num: 1, page_size: 100 });

export const fetchSystem = (id: string) => api.get<SystemWithExecutions>(systemPath(id));
export const archiveSystem = (id: string) => api.delete<null>(systemPath(id));
export const startProcessing = (id: string) => api.post<SystemExecution>(`${systemPath(id)}/process/start`);
export const cancelProcessing = (id: string) => api.delete<SystemExecution>(`${systemPath(id)}/process/cancel`);

/** One result file (a structure or energies.csv) as text. */
export async function fetchResultText(id: string, name: string): Promise<string> {
  const blob = await api.get<Blob>(`${systemPath(id)}/files/${encodeURIComponent(name)}`, { responseType: "blob" });
  return blob.text();
}

/** Downloads the results bundle and saves it as '{sanitized_name}_files.zip'. */
export async function downloadSystemFiles(system: Pick<SystemWithExecutions, "id" | "sanitized_name">) {
  const blob = await api.get<Blob>(`${systemPath(system.id)}/files`, { responseType: "blob" });
  saveBlob(blob, `${system.sanitized_name}_files.zip`);
}
