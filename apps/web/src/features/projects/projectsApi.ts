import type { ListResponse } from "@polyforge/contracts/pagination";
import { PROJECTS_PAGE_SIZE, type Project, type ProjectBody } from "@polyforge/contracts/projects";
import { api } from "../../lib/api/client";

export const PROJECTS_QUERY_KEY = ["projects"] as const;

const projectPath = (id: string) => `/projects/${encodeURIComponent(id)}`;

/** SPEC §9: the projects are read in one page of 100. */
export const fetchProjects = () =>
  api.get<ListResponse<Project>>("/projects", { query: { page_num: 1, page_size: PROJECTS_PAGE_SIZE } });
export const createProject = (body: ProjectBody) => api.post<Project>("/projects", body);
export const updateProject = (id: string, body: ProjectBody) => api.patch<Project>(projectPath(id), body);
export const deleteProject = (id: string) => api.delete<null>(projectPath(id));
export const fileSystem = (projectId: string, systemId: string) =>
  api.put<Project>(`${projectPath(projectId)}/systems/${encodeURIComponent(systemId)}`);
export const unfileSystem = (projectId: string, systemId: string) =>
  api.delete<Project>(`${projectPath(projectId)}/systems/${encodeURIComponent(systemId)}`);
