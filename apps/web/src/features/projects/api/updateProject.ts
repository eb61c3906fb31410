import type { Project, ProjectBody } from "@polyforge/contracts/projects";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";
import type { MutationConfig } from "../../../lib/api/mutationConfig";
import { PROJECTS_QUERY_KEY, projectPath } from "./getProjects";

export const updateProject = (id: string, body: ProjectBody) => api.patch<Project>(projectPath(id), body);

/** Renames or re-describes a project, then refreshes the projects. No id: nothing to update yet. */
export function useUpdateProject(id: string | undefined, mutationConfig?: MutationConfig<Project, ProjectBody>) {
  const queryClient = useQueryClient();
  const { onSuccess, ...rest } = mutationConfig ?? {};
  return useMutation({
    ...rest,
    mutationFn: (body: ProjectBody) => updateProject(id!, body),
    onSuccess: async (...args) => {
      void queryClient.invalidateQueries({ queryKey: PROJECTS_QUERY_KEY });
      await onSuccess?.(...args);
    },
  });
}
