import type { ListResponse } from "@polyforge/contracts/pagination";
import { PROJECTS_PAGE_SIZE, type Project } from "@polyforge/contracts/projects";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";

/** The one key of the caller's projects; every project change invalidates it. */
export const PROJECTS_QUERY_KEY = ["projects"] as const;

export const projectPath = (id: string) => `/projects/${encodeURIComponent(id)}`;

/** SPEC §9: the projects are read in one page of 100. */
export const fetchProjects = () =>
  api.get<ListResponse<Project>>("/projects", { query: { page_num: 1, page_size: PROJECTS_PAGE_SIZE } });

export const projectsQueryOptions = () => queryOptions({ queryKey: PROJECTS_QUERY_KEY, queryFn: fetchProjects });

/** The caller's projects (one page of 100), shared by the summary, the pickers and the filter. */
export const useProjects = () => useQuery(projectsQueryOptions());
