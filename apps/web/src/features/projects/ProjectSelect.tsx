import { Select } from "@mantine/core";
import { useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import { useTranslation } from "react-i18next";
import { toast } from "sonner";
import { errorMessage } from "../../lib/api/productError";
import { fileSystem } from "./api/fileSystem";
import { PROJECTS_QUERY_KEY, useProjects } from "./api/getProjects";

/** Where a system being created will be filed: one of the caller's projects, or none. */
export function ProjectSelect({ value, onChange }: { value: string | null; onChange: (value: string | null) => void }) {
  const { t } = useTranslation("projects");
  const projects = useProjects();
  return (
    <Select
      w={360}
      label={t("filing.createLabel")}
      placeholder={t("filing.createPlaceholder")}
      data={(projects.data?.data ?? []).map((project) => ({ value: project.id, label: project.name }))}
      value={value}
      onChange={onChange}
      clearable
      searchable
      nothingFoundMessage={t("empty")}
      error={projects.isError ? t("loadFailed") : undefined}
    />
  );
}

/** Files a newly created system; says so, or why not (the system itself stays created). */
export function useFileNewSystem() {
  const { t } = useTranslation("projects");
  const queryClient = useQueryClient();
  return useCallback(
    async (system: { id: string; name: string }, projectId: string) => {
      try {
        const project = await fileSystem(projectId, system.id);
        toast.success(t("filing.filed", { name: system.name, project: project.name }));
      } catch (error) {
        toast.error(t("filing.failed"), { description: errorMessage(error) });
      }
      await queryClient.invalidateQueries({ queryKey: PROJECTS_QUERY_KEY });
    },
    [queryClient, t],
  );
}
