import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";
import { SYSTEMS_QUERY_KEY, systemPath } from "../../../lib/api/systems";

export const structurePdbQueryKey = (id: string, file: string) =>
  [...SYSTEMS_QUERY_KEY, "structure", id, file] as const;

/** The PDB the viewer shows (the converted structure, or the validated file as PDB). */
export async function fetchStructurePdb(id: string): Promise<string> {
  const blob = await api.get<Blob>(`${systemPath(id)}/structure`, { responseType: "blob" });
  return blob.text();
}

/** Keyed by the viewer file's name: a new structure is a new key; one file never changes. */
export const structurePdbQueryOptions = (id: string, file: string) =>
  queryOptions({
    queryKey: structurePdbQueryKey(id, file),
    queryFn: () => fetchStructurePdb(id),
    staleTime: Infinity,
    retry: 1,
  });

/** The viewer's PDB, once the structure has a viewer file. */
export const useStructurePdb = (systemId: string, viewerFile: string | null) =>
  useQuery({ ...structurePdbQueryOptions(systemId, viewerFile ?? ""), enabled: viewerFile !== null });
