import type { MolecularSystemData } from "@polyforge/contracts/molecular-systems";
import type { SystemWithExecutions } from "@polyforge/contracts/system-executions";
import { useQuery } from "@tanstack/react-query";
import { systemQueryOptions } from "../../../lib/api/systems";
import { useSystemsPollInterval } from "../../../lib/notifications/connectionState";

/** A system from a file or a structure: its system_data is SPEC §3's upload/smiles shape. */
export type MolecularSystem = Omit<SystemWithExecutions, "system_data"> & { system_data: MolecularSystemData };

// The server answers an upload or smiles system with that shape; the cache entry is the systems
// feature's too, so it is read as what it is here rather than fetched a second way.
const asMolecularSystem = (system: SystemWithExecutions) => system as MolecularSystem;

/** The system being defined; nothing is asked before it exists (no id yet on a new one's Details step). */
export function useMolecularSystem(systemId: string | undefined) {
  return useQuery({
    ...systemQueryOptions(systemId ?? ""),
    select: asMolecularSystem,
    enabled: systemId !== undefined,
    // Live through the notification socket; polled only while it is closed (SPEC §4).
    refetchInterval: useSystemsPollInterval(),
    retry: false,
  });
}
