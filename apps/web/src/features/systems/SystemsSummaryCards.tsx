import { Anchor, Group } from "@mantine/core";
import { currentStatus } from "@polyforge/contracts/system-executions";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useTranslation } from "react-i18next";
import { SUMMARY_CARD_ITEMS, SUMMARY_FRESH_MS, SummaryCard } from "../../components/SummaryCard";
import { useSystemsPollInterval } from "../../lib/notifications/connectionState";
import { type SystemListParams, systemsQueryOptions } from "./api/getSystems";
import { ExecutionStatusTag } from "./ExecutionStatusTag";

/** A card's list: the first five systems of one type. The dashboard's route asks for both before
 * the page renders (its loader); fresh for a few seconds so that the cards use those answers. */
export function systemsSummaryQuery(type: "molecule" | "system") {
  const params: SystemListParams = { page_num: 1, page_size: SUMMARY_CARD_ITEMS, type };
  return queryOptions({ ...systemsQueryOptions(params), staleTime: SUMMARY_FRESH_MS });
}

/** A dashboard card of the first five systems of one type, with their status tags (SPEC §2). */
function SystemsOfTypeCard({ type, title }: { type: "molecule" | "system"; title: string }) {
  const { t } = useTranslation("systems");
  const systems = useQuery({ ...systemsSummaryQuery(type), refetchInterval: useSystemsPollInterval() });
  return (
    <SummaryCard
      title={title}
      items={systems.data?.data ?? []}
      total={systems.data?.metadata.num_records}
      loading={systems.isPending}
      error={systems.isError ? t("summary.loadFailed") : null}
      itemKey={(system) => system.id}
      renderItem={(system) => (
        <Group justify="space-between" wrap="nowrap">
          <Anchor
            size="sm"
            renderRoot={(props) => <Link {...props} to="/systems/$systemId" params={{ systemId: system.id }} />}
          >
            {system.name}
          </Anchor>
          {system.origin === "polymer_builder" && system.type !== "not_defined" ? (
            <ExecutionStatusTag status={currentStatus(system)} progress={system.system_executions.at(-1)?.progress} />
          ) : null}
        </Group>
      )}
      showAll={(label) => (
        <Anchor size="sm" fw={600} renderRoot={(props) => <Link {...props} to="/systems" search={{ type }} />}>
          {label}
        </Anchor>
      )}
    />
  );
}

export function MoleculesSummaryCard() {
  const { t } = useTranslation("systems");
  return <SystemsOfTypeCard type="molecule" title={t("summary.molecules")} />;
}

export function SystemsSummaryCard() {
  const { t } = useTranslation("systems");
  return <SystemsOfTypeCard type="system" title={t("summary.systems")} />;
}
