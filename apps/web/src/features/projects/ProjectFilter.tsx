import { Select } from "@mantine/core";
import { useTranslation } from "react-i18next";
import { useProjects } from "./api/getProjects";

/** The systems catalogue's project filter: all systems, or one project's. */
export function ProjectFilter({
  value,
  onChange,
}: {
  value: string | undefined;
  onChange: (projectId: string | undefined) => void;
}) {
  const { t } = useTranslation("projects");
  const projects = useProjects();
  const data = (projects.data?.data ?? []).map((project) => ({ value: project.id, label: project.name }));
  return (
    <Select
      w={220}
      aria-label={t("filter.label")}
      placeholder={t("filter.all")}
      data={data}
      value={value ?? null}
      onChange={(next) => onChange(next ?? undefined)}
      clearable
      searchable
      nothingFoundMessage={t("empty")}
    />
  );
}
