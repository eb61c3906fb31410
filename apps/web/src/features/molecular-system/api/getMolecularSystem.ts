import type { MolecularSystemData } from "@polyforge/contracts/molecular-systems";
import type { SystemWithExecutions } from "@polyforge/contracts/system-executions";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";
import { SYSTEMS_QUERY_KEY } from "../../../lib/api/systems";
import { useSystemsPollInterval } from "../../../lib/notifications/connectionState";

/** A system from a file or a structure: its system_data is SPEC §3's upload/smiles shape. */
export type MolecularSystem = Omit<SystemWithExecutions, "system_data"> & { system_data: MolecularSystemData };

export const systemPath = (id: string) => `/systems/${encodeURIComponent(id)}`;

// The same key as the systems feature's detail query: one cached copy, refreshed by any notification.
export const molecularSystemQueryKey = (id: string) => [...SYSTEMS_QUERY_KEY, "detail", id] as const;

export const fetchMolecularSystem = (id: string) => api.get<MolecularSystem>(systemPath(id));

export const molecularSystemQueryOptions = (id: string) =>
  queryOptions({ queryKey: molecularSystemQueryKey(id), queryFn: () => fetchMolecularSystem(id) });

/** The system being defined; nothing is asked before it exists (no id yet on a new one's Details step). */
export function useMolecularSystem(systemId: string | undefined) {
  return useQuery({
    ...molecularSystemQueryOptions(systemId ?? ""),
    enabled: systemId !== undefined,
    // Live through the notification socket; polled only while it is closed (SPEC §4).
    refetchInterval: useSystemsPollInterval(),
    retry: false,
  });
}
