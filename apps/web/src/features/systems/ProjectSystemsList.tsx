import { Anchor, Group, Loader, Table, Text } from "@mantine/core";
import type { ListResponse } from "@polyforge/contracts/pagination";
import { currentStatus, type SystemWithExecutions } from "@polyforge/contracts/system-executions";
import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useTranslation } from "react-i18next";
import { api } from "../../lib/api/client";
import { SYSTEMS_QUERY_KEY } from "../../lib/api/systems";
import { useSystemsPollInterval } from "../../lib/notifications/connectionState";
import { ExecutionStatusTag } from "./ExecutionStatusTag";
import { SystemTypeBadge } from "./SystemTypeBadge";

/** The systems of one project, every type, with live status tags (up to 100, SPEC §9's page). */
export function ProjectSystemsList({ projectId, failedText }: { projectId: string; failedText: string }) {
  const { t } = useTranslation("systems");
  const systems = useQuery({
    queryKey: [...SYSTEMS_QUERY_KEY, "project", projectId],
    queryFn: () =>
      api.get<ListResponse<SystemWithExecutions>>("/systems", {
        query: { project_id: projectId, page_num: 1, page_size: 100 },
      }),
    refetchInterval: useSystemsPollInterval(),
  });
  if (systems.isPending) return <Loader size="sm" aria-label={t("loading")} />;
  if (systems.isError) return <Text c="red">{failedText}</Text>;
  return (
    <Table withRowBorders={false} verticalSpacing={4}>
      <Table.Tbody>
        {systems.data.data.map((system) => (
          <Table.Tr key={system.id} data-system-id={system.id}>
            <Table.Td>
              <Anchor
                renderRoot={(props) => <Link {...props} to="/systems/$systemId" params={{ systemId: system.id }} />}
              >
                {system.name}
              </Anchor>
            </Table.Td>
            <Table.Td>
              <Group gap="xs" wrap="nowrap">
                <SystemTypeBadge type={system.type} />
                <ExecutionStatusTag
                  status={currentStatus(system)}
                  progress={system.system_executions.at(-1)?.progress}
                  error={system.system_executions.at(-1)?.error_message}
                />
              </Group>
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
