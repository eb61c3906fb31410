import type { SystemWithExecutions } from "@polyforge/contracts/system-executions";
import { useMutation } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";
import type { MutationConfig } from "../../../lib/api/mutationConfig";
import { systemPath } from "../../../lib/api/systems";
import { saveBlob } from "../../../lib/files/saveBlob";

type DownloadedSystem = Pick<SystemWithExecutions, "id" | "sanitized_name">;

/** Downloads the results bundle and saves it as '{sanitized_name}_files.zip'. */
export async function downloadSystemFiles(system: DownloadedSystem) {
  const blob = await api.get<Blob>(`${systemPath(system.id)}/files`, { responseType: "blob" });
  saveBlob(blob, `${system.sanitized_name}_files.zip`);
}

/** The download as a mutation (its pending state drives the button); nothing cached changes. */
export const useDownloadSystemFiles = (system: DownloadedSystem, mutationConfig?: MutationConfig<void>) =>
  useMutation({ ...mutationConfig, mutationFn: () => downloadSystemFiles(system) });
