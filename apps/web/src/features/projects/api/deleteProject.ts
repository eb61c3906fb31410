import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";
import type { MutationConfig } from "../../../lib/api/mutationConfig";
import { PROJECTS_QUERY_KEY, projectPath } from "./getProjects";

export const deleteProject = (id: string) => api.delete<null>(projectPath(id));

/** Deletes a project (its systems stay); the projects refresh whether it worked or not. */
export function useDeleteProject(mutationConfig?: MutationConfig<null, string>) {
  const queryClient = useQueryClient();
  const { onSettled, ...rest } = mutationConfig ?? {};
  return useMutation({
    ...rest,
    mutationFn: (id: string) => deleteProject(id),
    onSettled: async (...args) => {
      await onSettled?.(...args);
      await queryClient.invalidateQueries({ queryKey: PROJECTS_QUERY_KEY });
    },
  });
}
