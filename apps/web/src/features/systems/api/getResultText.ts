import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";
import { SYSTEMS_QUERY_KEY, systemPath } from "../../../lib/api/systems";

export const resultFileQueryKey = (id: string, executionId: string, name: string) =>
  [...SYSTEMS_QUERY_KEY, "file", id, executionId, name] as const;

/** One result file (a structure or energies.csv) as text. */
export async function fetchResultText(id: string, name: string): Promise<string> {
  const blob = await api.get<Blob>(`${systemPath(id)}/files/${encodeURIComponent(name)}`, { responseType: "blob" });
  return blob.text();
}

/** Keyed by the run: a finished run's files never change. */
export const resultTextQueryOptions = (id: string, executionId: string, name: string) =>
  queryOptions({
    queryKey: resultFileQueryKey(id, executionId, name),
    queryFn: () => fetchResultText(id, name),
    staleTime: Number.POSITIVE_INFINITY,
  });

export const useResultText = (systemId: string, executionId: string, name: string) =>
  useQuery(resultTextQueryOptions(systemId, executionId, name));
