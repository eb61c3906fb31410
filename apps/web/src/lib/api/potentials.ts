import type { PotentialsList } from "@polyforge/contracts/potentials";
import { queryOptions } from "@tanstack/react-query";
import { api } from "./client";
import { SYSTEMS_QUERY_KEY, systemPath } from "./systems";

/** A system's potentials as GET /systems/{id}/potentials/ answers them (statuses, results): read by
 * the molecular-system flow's Potentials step and by the catalogue's potential rows. */
export const potentialsPath = (systemId: string) => `${systemPath(systemId)}/potentials`;
export const potentialPath = (systemId: string, potentialId: string) =>
  `${potentialsPath(systemId)}/${encodeURIComponent(potentialId)}`;

// One of its system's own queries (the id third): a potential's status message refreshes it with
// that system's other queries (SPEC §4 Real-time updates).
export const potentialsQueryKey = (systemId: string) => [...SYSTEMS_QUERY_KEY, "potentials", systemId] as const;

export const fetchPotentials = (systemId: string) => api.get<PotentialsList>(`${potentialsPath(systemId)}/`);

export const potentialsQueryOptions = (systemId: string) =>
  queryOptions({ queryKey: potentialsQueryKey(systemId), queryFn: () => fetchPotentials(systemId) });
