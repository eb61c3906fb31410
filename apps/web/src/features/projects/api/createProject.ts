import type { Project, ProjectBody } from "@polyforge/contracts/projects";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";
import type { MutationConfig } from "../../../lib/api/mutationConfig";
import { PROJECTS_QUERY_KEY } from "./getProjects";

export const createProject = (body: ProjectBody) => api.post<Project>("/projects", body);

/** Creates a project, then refreshes the projects. */
export function useCreateProject(mutationConfig?: MutationConfig<Project, ProjectBody>) {
  const queryClient = useQueryClient();
  const { onSuccess, ...rest } = mutationConfig ?? {};
  return useMutation({
    ...rest,
    mutationFn: (body: ProjectBody) => createProject(body),
    onSuccess: async (...args) => {
      void queryClient.invalidateQueries({ queryKey: PROJECTS_QUERY_KEY });
      await onSuccess?.(...args);
    },
  });
}
