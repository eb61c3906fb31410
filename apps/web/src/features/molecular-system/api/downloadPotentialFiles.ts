import { useMutation } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";
import type { MutationConfig } from "../../../lib/api/mutationConfig";
import { potentialPath } from "../../../lib/api/potentials";
import { saveBlob } from "../../../lib/files/saveBlob";

/** Downloads a completed generated potential's files as one zip, or an uploaded potential's .top. */
export async function downloadPotentialFiles(systemId: string, potentialId: string, fileName: string) {
  const blob = await api.get<Blob>(`${potentialPath(systemId, potentialId)}/files`, { responseType: "blob" });
  saveBlob(blob, fileName);
}

/** The download as a mutation (its pending state drives the button); mutate with the file's name. */
export const useDownloadPotentialFiles = (
  systemId: string,
  potentialId: string,
  mutationConfig?: MutationConfig<void, string>,
) =>
  useMutation({
    ...mutationConfig,
    mutationFn: (fileName: string) => downloadPotentialFiles(systemId, potentialId, fileName),
  });
