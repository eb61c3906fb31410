import type { PotentialsList } from "@polyforge/contracts/potentials";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";
import { SYSTEMS_QUERY_KEY, systemPath } from "../../../lib/api/systems";
import { useSystemsPollInterval } from "../../../lib/notifications/connectionState";

export const potentialsPath = (systemId: string) => `${systemPath(systemId)}/potentials`;
export const potentialPath = (systemId: string, potentialId: string) =>
  `${potentialsPath(systemId)}/${encodeURIComponent(potentialId)}`;

// One of its system's own queries (the id third): a potential's status message refreshes it with
// that system's other queries (SPEC §4 Real-time updates).
export const potentialsQueryKey = (systemId: string) => [...SYSTEMS_QUERY_KEY, "potentials", systemId] as const;

export const fetchPotentials = (systemId: string) => api.get<PotentialsList>(`${potentialsPath(systemId)}/`);

export const potentialsQueryOptions = (systemId: string) =>
  queryOptions({ queryKey: potentialsQueryKey(systemId), queryFn: () => fetchPotentials(systemId) });

/** A system's potentials with their live statuses. */
export const usePotentials = (systemId: string) =>
  // Live through the notification socket; polled only while it is closed (SPEC §4).
  useQuery({ ...potentialsQueryOptions(systemId), refetchInterval: useSystemsPollInterval() });
