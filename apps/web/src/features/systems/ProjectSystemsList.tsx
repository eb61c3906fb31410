import { Anchor, Group, Loader, Table, Text } from "@mantine/core";
import { currentStatus } from "@polyforge/contracts/system-executions";
import { Link } from "@tanstack/react-router";
import { useTranslation } from "react-i18next";
import { useProjectSystems } from "./api/getProjectSystems";
import { ExecutionStatusTag } from "./ExecutionStatusTag";
import { SystemTypeBadge } from "./SystemTypeBadge";

/** The systems of one project, every type, with live status tags (up to 100, SPEC §9's page). */
export function ProjectSystemsList({ projectId, failedText }: { projectId: string; failedText: string }) {
  const { t } = useTranslation("systems");
  const systems = useProjectSystems(projectId);
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
