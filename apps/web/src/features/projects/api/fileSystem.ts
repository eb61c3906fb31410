import type { Project } from "@polyforge/contracts/projects";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";
import type { MutationConfig } from "../../../lib/api/mutationConfig";
import { SYSTEMS_QUERY_KEY } from "../../../lib/api/systems";
import { PROJECTS_QUERY_KEY, projectPath } from "./getProjects";

/** Files a system under a project (moving it out of the one it was in). */
export const fileSystem = (projectId: string, systemId: string) =>
  api.put<Project>(`${projectPath(projectId)}/systems/${encodeURIComponent(systemId)}`);

/** Files `systemId` under the project given to mutate; projects and systems refresh either way. */
export function useFileSystem(systemId: string, mutationConfig?: MutationConfig<Project, Project>) {
  const queryClient = useQueryClient();
  const { onSettled, ...rest } = mutationConfig ?? {};
  return useMutation({
    ...rest,
    mutationFn: (target: Project) => fileSystem(target.id, systemId),
    onSettled: async (...args) => {
      await onSettled?.(...args);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: PROJECTS_QUERY_KEY }),
        queryClient.invalidateQueries({ queryKey: SYSTEMS_QUERY_KEY }),
      ]);
    },
  });
}
