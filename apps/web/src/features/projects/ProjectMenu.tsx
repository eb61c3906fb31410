import { ActionIcon, Button, Menu, Tooltip } from "@mantine/core";
import type { Project } from "@polyforge/contracts/projects";
import { IconCheck, IconFolder, IconFolderOff } from "@tabler/icons-react";
import { useTranslation } from "react-i18next";
import { toast } from "sonner";
import { errorMessage } from "../../lib/api/productError";
import { useFileSystem } from "./api/fileSystem";
import { useProjects } from "./api/getProjects";
import { useUnfileSystem } from "./api/unfileSystem";

/** The project a system is filed under, if any. */
export function projectOf(projects: Project[] | undefined, systemId: string): Project | undefined {
  return projects?.find((project) => project.system_ids.includes(systemId));
}

/** Files a system under one of the caller's projects, moves it, or takes it out. `compact` is the
 * icon for a table row; otherwise a button naming the project (the detail page). */
export function ProjectMenu({ system, compact = false }: { system: { id: string; name: string }; compact?: boolean }) {
  const { t } = useTranslation("projects");
  const projects = useProjects();
  const current = projectOf(projects.data?.data, system.id);
  const onError = (error: Error) => toast.error(t("filing.failed"), { description: errorMessage(error) });
  const file = useFileSystem(system.id, {
    onSuccess: (_, target) => toast.success(t("filing.filed", { name: system.name, project: target.name })),
    onError,
  });
  const unfile = useUnfileSystem(system.id, {
    onSuccess: () => toast.success(t("filing.unfiled", { name: system.name, project: current?.name })),
    onError,
  });
  const change = {
    isPending: file.isPending || unfile.isPending,
    mutate: (target: Project | null) => (target ? file.mutate(target) : unfile.mutate(current!.id)),
  };
  const label = current
    ? t("filing.inProject", { name: system.name, project: current.name })
    : t("filing.add", { name: system.name });
  const list = projects.data?.data ?? [];

  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        {compact ? (
          <Tooltip label={label}>
            <ActionIcon
              variant="subtle"
              aria-label={label}
              loading={change.isPending}
              color={current ? "blue" : "gray"}
            >
              <IconFolder size={18} />
            </ActionIcon>
          </Tooltip>
        ) : (
          <Button variant="light" leftSection={<IconFolder size={16} />} loading={change.isPending} aria-label={label}>
            {current ? current.name : t("filing.addShort")}
          </Button>
        )}
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>{t("filing.menuLabel")}</Menu.Label>
        {projects.isError ? <Menu.Item disabled>{t("loadFailed")}</Menu.Item> : null}
        {projects.isSuccess && list.length === 0 ? <Menu.Item disabled>{t("empty")}</Menu.Item> : null}
        {list.map((project) => (
          <Menu.Item
            key={project.id}
            leftSection={project.id === current?.id ? <IconCheck size={14} /> : <span style={{ width: 14 }} />}
            disabled={project.id === current?.id || change.isPending}
            onClick={() => change.mutate(project)}
          >
            {project.name}
          </Menu.Item>
        ))}
        {current ? (
          <>
            <Menu.Divider />
            <Menu.Item
              leftSection={<IconFolderOff size={14} />}
              disabled={change.isPending}
              onClick={() => change.mutate(null)}
            >
              {t("filing.remove", { project: current.name })}
            </Menu.Item>
          </>
        ) : null}
      </Menu.Dropdown>
    </Menu>
  );
}
