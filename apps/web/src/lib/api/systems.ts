import type { SystemWithExecutions } from "@polyforge/contracts/system-executions";
import { type QueryKey, queryOptions } from "@tanstack/react-query";
import { api } from "./client";

/** Every cached query of the API's /systems resource starts with this key (lists, details,
 * structures, potentials, result files), so one invalidation refreshes them all after a save in any
 * feature. */
export const SYSTEMS_QUERY_KEY = ["systems"] as const;

/** Every page of systems (catalogue pages, dashboard cards, a project's systems) is cached under
 * this key and holds a ListResponse<SystemWithExecutions>: live updates find the systems there. */
export const SYSTEM_LISTS_QUERY_KEY = [...SYSTEMS_QUERY_KEY, "list"] as const;

/** One system's own queries are keyed `["systems", <what>, <system id>, …]` (its detail, potentials,
 * structure, result files), so live updates can refresh one system without the others. */
export const isQueryOfSystem = (queryKey: QueryKey, systemId: string): boolean =>
  queryKey[0] === SYSTEMS_QUERY_KEY[0] && queryKey[1] !== SYSTEM_LISTS_QUERY_KEY[1] && queryKey[2] === systemId;

/** The key of GET /systems/{id}: the systems detail page and the molecular-system flow share it. */
export const systemQueryKey = (id: string) => [...SYSTEMS_QUERY_KEY, "detail", id] as const;

export const systemPath = (id: string) => `/systems/${encodeURIComponent(id)}`;

export const fetchSystem = (id: string) => api.get<SystemWithExecutions>(systemPath(id));

/** One system with its potentials and executions: every feature that shows a system reads it
 * through this one cache entry. */
export const systemQueryOptions = (id: string) =>
  queryOptions({ queryKey: systemQueryKey(id), queryFn: () => fetchSystem(id) });
