import type { Project } from "@polyforge/contracts/projects";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";
import type { MutationConfig } from "../../../lib/api/mutationConfig";
import { SYSTEMS_QUERY_KEY } from "../../../lib/api/systems";
import { PROJECTS_QUERY_KEY, projectPath } from "./getProjects";

export const unfileSystem = (projectId: string, systemId: string) =>
  api.delete<Project>(`${projectPath(projectId)}/systems/${encodeURIComponent(systemId)}`);

/** Takes `systemId` out of the project whose id is given to mutate; projects and systems refresh either way. */
export function useUnfileSystem(systemId: string, mutationConfig?: MutationConfig<Project, string>) {
  const queryClient = useQueryClient();
  const { onSettled, ...rest } = mutationConfig ?? {};
  return useMutation({
    ...rest,
    mutationFn: (projectId: string) => unfileSystem(projectId, systemId),
    onSettled: async (...args) => {
      await onSettled?.(...args);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: PROJECTS_QUERY_KEY }),
        queryClient.invalidateQueries({ queryKey: SYSTEMS_QUERY_KEY }),
      ]);
    },
  });
}
