import { useQuery } from "@tanstack/react-query";
import { fetchProjects, PROJECTS_QUERY_KEY } from "./projectsApi";

/** The caller's projects (one page of 100), shared by the summary, the pickers and the filter. */
export function useProjects() {
  return useQuery({ queryKey: PROJECTS_QUERY_KEY, queryFn: fetchProjects });
}
