import type { SystemWithExecutions } from "@polyforge/contracts/system-executions";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";
import { SYSTEMS_QUERY_KEY } from "../../../lib/api/systems";
import { useSystemsPollInterval } from "../../../lib/notifications/connectionState";

export const systemPath = (id: string) => `/systems/${encodeURIComponent(id)}`;

// The same key as molecular-system's detail query: one cached copy, refreshed by any notification.
export const systemQueryKey = (id: string) => [...SYSTEMS_QUERY_KEY, "detail", id] as const;

export const fetchSystem = (id: string) => api.get<SystemWithExecutions>(systemPath(id));

export const systemQueryOptions = (id: string) =>
  queryOptions({ queryKey: systemQueryKey(id), queryFn: () => fetchSystem(id) });

/** One system, live through the notification socket (polled only while it is closed); a failure is
 * not retried: the page decides what a missing system means. */
export const useSystem = (id: string) =>
  useQuery({ ...systemQueryOptions(id), refetchInterval: useSystemsPollInterval(), retry: false });
