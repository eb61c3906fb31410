import { ActionIcon, Button, Group, Modal, Stack, Table, Text, Title, Tooltip } from "@mantine/core";
import type { Project } from "@polyforge/contracts/projects";
import { IconChevronDown, IconChevronRight, IconPencil, IconPlus, IconTrash } from "@tabler/icons-react";
import { Fragment, type ReactNode, useState } from "react";
import { useTranslation } from "react-i18next";
import { toast } from "sonner";
import { CatalogueTable } from "../../components/CatalogueTable";
import { ProductError } from "../../lib/api/productError";
import { formatDate } from "../../lib/formatting/date";
import { useDeleteProject } from "./api/deleteProject";
import { useProjects } from "./api/getProjects";
import { ProjectFormModal } from "./ProjectFormModal";

export interface ProjectsPageProps {
  /** A project's systems with their status tags (composed by the app from the systems feature). */
  renderSystems: (project: Project) => ReactNode;
}

type Editing = { kind: "create" } | { kind: "update"; project: Project } | null;

/** /modeling-compute (SPEC §2): the projects summary with add, edit and delete. */
export function ProjectsPage({ renderSystems }: ProjectsPageProps) {
  const { t } = useTranslation("projects");
  const projects = useProjects();
  const [editing, setEditing] = useState<Editing>(null);
  const [deleting, setDeleting] = useState<Project | null>(null);

  return (
    <Stack gap="lg">
      {/* The button sits beside the title, not at the top right where toasts would cover it. */}
      <Stack gap={4}>
        <Group gap="lg">
          <Title order={2}>{t("title")}</Title>
          <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing({ kind: "create" })}>
            {t("add")}
          </Button>
        </Group>
        <Text c="dimmed">{t("description")}</Text>
      </Stack>
      <CatalogueTable
        columns={[
          t("columns.name"),
          t("columns.description"),
          t("columns.systems"),
          t("columns.lastModified"),
          t("columns.actions"),
        ]}
        otherColumnWidth="15%"
        list={projects}
        emptyText={t("empty")}
        failedText={t("loadFailed")}
        row={(project) => (
          <ProjectRow
            key={project.id}
            project={project}
            systems={renderSystems(project)}
            onEdit={() => setEditing({ kind: "update", project })}
            onDelete={() => setDeleting(project)}
          />
        )}
      />
      <ProjectFormModal
        opened={editing !== null}
        project={editing?.kind === "update" ? editing.project : undefined}
        onClose={() => setEditing(null)}
      />
      <DeleteProjectModal project={deleting} onClose={() => setDeleting(null)} />
    </Stack>
  );
}

function ProjectRow({
  project,
  systems,
  onEdit,
  onDelete,
}: {
  project: Project;
  systems: ReactNode;
  onEdit: () => void;
  onDelete: () => void;
}) {
  const { t } = useTranslation("projects");
  const [expanded, setExpanded] = useState(false);
  const count = project.system_ids.length;
  const name = project.name;
  return (
    <Fragment>
      <Table.Tr data-project-id={project.id}>
        <Table.Td>
          <Group gap="xs" wrap="nowrap">
            <ActionIcon
              variant="subtle"
              size="sm"
              aria-label={t(expanded ? "collapse" : "expand", { name })}
              aria-expanded={expanded}
              onClick={() => setExpanded(!expanded)}
            >
              {expanded ? <IconChevronDown size={16} /> : <IconChevronRight size={16} />}
            </ActionIcon>
            <Text fw={500}>{name}</Text>
          </Group>
        </Table.Td>
        <Table.Td>
          <Text size="sm" lineClamp={2}>
            {project.description ?? ""}
          </Text>
        </Table.Td>
        <Table.Td>{t("systemCount", { count })}</Table.Td>
        <Table.Td>{formatDate(project.updated_at)}</Table.Td>
        <Table.Td>
          <Group gap={4} wrap="nowrap">
            <Tooltip label={t("edit", { name })}>
              <ActionIcon variant="subtle" aria-label={t("edit", { name })} onClick={onEdit}>
                <IconPencil size={18} />
              </ActionIcon>
            </Tooltip>
            <Tooltip label={t("delete", { name })}>
              <ActionIcon variant="subtle" color="red" aria-label={t("delete", { name })} onClick={onDelete}>
                <IconTrash size={18} />
              </ActionIcon>
            </Tooltip>
          </Group>
        </Table.Td>
      </Table.Tr>
      {expanded ? (
        <Table.Tr>
          <Table.Td colSpan={5} pl="xl">
            {count === 0 ? (
              <Text size="sm" c="dimmed">
                {t("noSystems")}
              </Text>
            ) : (
              systems
            )}
          </Table.Td>
        </Table.Tr>
      ) : null}
    </Fragment>
  );
}

/** Asks before deleting, and says that the project's systems stay. */
function DeleteProjectModal({ project, onClose }: { project: Project | null; onClose: () => void }) {
  const { t } = useTranslation("projects");
  const remove = useDeleteProject({
    onSuccess: () => {
      toast.success(t("toasts.deleted"));
      onClose();
    },
    onError: (error) => {
      const title = t("toasts.deleteFailed");
      const reason = error instanceof ProductError && error.status !== null ? error.message : title;
      toast.error(title, reason !== title ? { description: reason } : {});
    },
  });
  return (
    <Modal opened={project !== null} onClose={onClose} title={t("deleteConfirm.title")}>
      <Stack>
        <Text>{t("deleteConfirm.message", { name: project?.name, count: project?.system_ids.length ?? 0 })}</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {t("form.cancel")}
          </Button>
          <Button
            color="red"
            loading={remove.isPending}
            onClick={() => project && !remove.isPending && remove.mutate(project.id)}
          >
            {t("deleteConfirm.confirm")}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
