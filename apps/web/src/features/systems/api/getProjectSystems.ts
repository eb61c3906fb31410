import { queryOptions, useQuery } from "@tanstack/react-query";
import { SYSTEM_LISTS_QUERY_KEY } from "../../../lib/api/systems";
import { useSystemsPollInterval } from "../../../lib/notifications/connectionState";
import { fetchSystems } from "./getSystems";

export const projectSystemsQueryKey = (projectId: string) =>
  [...SYSTEM_LISTS_QUERY_KEY, { project_id: projectId }] as const;

/** The systems of one project, every type, up to 100 (SPEC §9's page). */
export const fetchProjectSystems = (projectId: string) =>
  fetchSystems({ project_id: projectId, page_num: 1, page_size: 100 });

export const projectSystemsQueryOptions = (projectId: string) =>
  queryOptions({ queryKey: projectSystemsQueryKey(projectId), queryFn: () => fetchProjectSystems(projectId) });

/** A project's systems, live through the notification socket; polled only while it is closed. */
export const useProjectSystems = (projectId: string) =>
  useQuery({ ...projectSystemsQueryOptions(projectId), refetchInterval: useSystemsPollInterval() });
