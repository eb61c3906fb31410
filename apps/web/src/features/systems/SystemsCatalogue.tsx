import { ActionIcon, Anchor, Box, Group, SegmentedControl, Stack, Table, Text, Title } from "@mantine/core";
import { SYSTEM_TYPES, type SystemType } from "@polyforge/contracts/enums";
import { potentialStatus } from "@polyforge/contracts/potentials";
import type { SystemWithExecutions } from "@polyforge/contracts/system-executions";
import { IconChevronDown, IconChevronRight } from "@tabler/icons-react";
import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { Fragment, type ReactNode, useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import {
  CATALOGUE_PAGE_SIZE,
  type CatalogueList,
  CatalogueNameSearch,
  CataloguePagination,
  CatalogueTable,
  useCatalogueSearch,
  useKeepPageInRange,
} from "../../components/CatalogueTable";
import { potentialsQueryOptions } from "../../lib/api/potentials";
import { formatDate } from "../../lib/formatting/date";
import { type SystemListParams, useSystems } from "./api/getSystems";
import { ExecutionStatusTag } from "./ExecutionStatusTag";
import { SystemActions } from "./SystemActions";
import { SystemTypeBadge } from "./SystemTypeBadge";
import { systemStatus, systemStatusError } from "./systemStatus";

export interface SystemsCatalogueProps {
  type: SystemType;
  onTypeChange: (type: SystemType) => void;
  /** Only this project's systems (the app composes the projects feature's filter and menu). */
  projectId?: string;
  projectFilter?: ReactNode;
  rowActions?: (system: SystemWithExecutions) => ReactNode;
}

/** /systems (SPEC §2): type filter, name search, table with live statuses, and pagination. */
export function SystemsCatalogue({ type, onTypeChange, projectId, projectFilter, rowActions }: SystemsCatalogueProps) {
  const { t } = useTranslation("systems");
  const { page, setPage, nameSearch, name, changeName, reset } = useCatalogueSearch();

  const params: SystemListParams = {
    page_num: page,
    page_size: CATALOGUE_PAGE_SIZE,
    type,
    name,
    project_id: projectId,
  };
  const systems = useSystems(params);
  const total = systems.data?.metadata.num_records ?? 0;
  useKeepPageInRange(systems, page, setPage);
  // Another project's systems start on their first page.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the project changes.
  useEffect(() => setPage(1), [projectId]);

  function changeType(next: SystemType) {
    reset();
    onTypeChange(next);
  }

  return (
    <Stack gap="lg">
      <Title order={2}>{t("catalogue.title")}</Title>
      <Group justify="space-between">
        <SegmentedControl
          value={type}
          data={SYSTEM_TYPES.map((value) => ({ value, label: t(`types.${value}`) }))}
          onChange={(value) => changeType(value as SystemType)}
          aria-label={t("catalogue.filterLabel")}
        />
        <Group gap="sm">
          {projectFilter}
          <CatalogueNameSearch label={t("catalogue.searchPlaceholder")} value={nameSearch} onChange={changeName} />
        </Group>
      </Group>
      <SystemsTable systems={systems} rowActions={rowActions} />
      <CataloguePagination page={page} total={total} onPageChange={setPage} />
    </Stack>
  );
}

function SystemsTable({
  systems,
  rowActions,
}: {
  systems: CatalogueList<SystemWithExecutions>;
  rowActions?: (system: SystemWithExecutions) => ReactNode;
}) {
  const { t } = useTranslation("systems");
  const columns = [
    t("columns.name"),
    t("columns.type"),
    t("columns.status"),
    t("columns.lastModified"),
    t("columns.actions"),
  ];
  return (
    <CatalogueTable
      columns={columns}
      otherColumnWidth="15%"
      list={systems}
      emptyText={t("catalogue.empty")}
      failedText={t("catalogue.loadFailed")}
      row={(system) => <SystemRow key={system.id} system={system} extraActions={rowActions?.(system)} />}
    />
  );
}

function SystemRow({ system, extraActions }: { system: SystemWithExecutions; extraActions?: ReactNode }) {
  const { t } = useTranslation("systems");
  const [expanded, setExpanded] = useState(false);
  const latest = system.system_executions.at(-1);
  const hasPotentials = system.potentials.length > 0;
  const toggleLabel = t(expanded ? "catalogue.collapse" : "catalogue.expand", { name: system.name });
  return (
    <Fragment>
      <Table.Tr data-system-id={system.id}>
        <Table.Td>
          <Group gap="xs" wrap="nowrap">
            {/* The expander's place is kept on every row, so all names start at the same x. */}
            <Box w={EXPANDER_WIDTH} style={{ flexShrink: 0 }} data-expander-slot>
              {hasPotentials ? (
                <ActionIcon variant="subtle" size="sm" aria-label={toggleLabel} onClick={() => setExpanded(!expanded)}>
                  {expanded ? <IconChevronDown size={16} /> : <IconChevronRight size={16} />}
                </ActionIcon>
              ) : null}
            </Box>
            <Anchor
              renderRoot={(props) => <Link {...props} to="/systems/$systemId" params={{ systemId: system.id }} />}
            >
              {system.name}
            </Anchor>
          </Group>
        </Table.Td>
        <Table.Td>
          <SystemTypeBadge type={system.type} />
        </Table.Td>
        <Table.Td>
          <ExecutionStatusTag
            status={systemStatus(system)}
            progress={latest?.progress}
            error={systemStatusError(system)}
          />
        </Table.Td>
        <Table.Td>{formatDate(system.updated_at)}</Table.Td>
        <Table.Td>
          <Group gap={4} wrap="nowrap">
            <SystemActions system={system} />
            {extraActions}
          </Group>
        </Table.Td>
      </Table.Tr>
      {expanded ? <PotentialRows system={system} /> : null}
    </Fragment>
  );
}

/** The width of the expander (Mantine's ActionIcon size sm). */
const EXPANDER_WIDTH = 22;

/** A system's 'Potential - {name}' rows, each with its type and its status tag. The statuses are read
 * when the rows are opened (the systems list names the potentials only). */
function PotentialRows({ system }: { system: SystemWithExecutions }) {
  const { t } = useTranslation("systems");
  const potentials = useQuery(potentialsQueryOptions(system.id));
  const byId = new Map(potentials.data?.data.map((potential) => [potential.id, potential]));
  return system.potentials.map((summary) => {
    const potential = byId.get(summary.id);
    return (
      <Table.Tr key={summary.id} data-potential-id={summary.id}>
        <Table.Td pl={48}>{t("catalogue.potential", { name: summary.name })}</Table.Td>
        <Table.Td>
          <SystemTypeBadge type={summary.system_type as SystemType} />
        </Table.Td>
        <Table.Td colSpan={3}>
          {potential ? (
            <ExecutionStatusTag
              status={potentialStatus(potential)}
              progress={potential.potential_execution?.progress}
              error={potential.potential_execution?.error_message}
            />
          ) : potentials.isError ? (
            <Text size="sm" c="dimmed">
              {t("catalogue.potentialStatusFailed")}
            </Text>
          ) : null}
        </Table.Td>
      </Table.Tr>
    );
  });
}
