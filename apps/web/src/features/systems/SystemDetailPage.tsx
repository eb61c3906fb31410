import { Alert, Anchor, Group, Loader, Stack, Text, Title } from "@mantine/core";
import { currentStatus } from "@polyforge/contracts/system-executions";
import { Link } from "@tanstack/react-router";
import { type ReactNode, useEffect } from "react";
import { useTranslation } from "react-i18next";
import { toast } from "sonner";
import { ProductError } from "../../lib/api/productError";
import { useSystem } from "./api/getSystem";
import { DynamicsProgress } from "./DynamicsProgress";
import { ExecutionStatusTag } from "./ExecutionStatusTag";
import { PolymerBuilderSummary } from "./PolymerBuilderSummary";
import { SystemActions } from "./SystemActions";
import { SystemResults } from "./SystemResults";
import { SystemTypeBadge } from "./SystemTypeBadge";

export interface SystemDetailPageProps {
  systemId: string;
  /** Where to go when the system cannot be loaded or was archived: the catalogue. */
  onLeave: () => void;
  /** Structure- and file-based systems show the add-molecular-system flow instead of a summary. */
  otherOrigin: (systemId: string) => ReactNode;
  /** Shown beside the actions (the app composes the project the system is filed under). */
  headerExtras?: (system: { id: string; name: string }) => ReactNode;
}

/** /systems/$systemId (SPEC §2): back link, name, type badge, summary, status and results. */
export function SystemDetailPage({ systemId, onLeave, otherOrigin, headerExtras }: SystemDetailPageProps) {
  const { t } = useTranslation("systems");
  const system = useSystem(systemId);

  useEffect(() => {
    if (!system.isError) return;
    // A refresh that cannot reach the server (it is restarting: issue 23, a run taken back) keeps the
    // page, which refreshes again; a system that cannot be loaded at all, or is gone, sends the user
    // back (SPEC).
    const status = system.error instanceof ProductError ? system.error.status : null;
    if (system.data && (status === null || status >= 500)) return;
    toast.error(t("detail.loadFailed"));
    onLeave();
  }, [system.isError, system.error, system.data, onLeave, t]);

  if (!system.data) return <Loader aria-label={t("loading")} />;
  const data = system.data;
  const latest = data.system_executions.at(-1);
  return (
    <Stack gap="lg">
      <Anchor size="sm" renderRoot={(props) => <Link {...props} to="/systems" search={{ type: data.type }} />}>
        {t("backToCatalogue")}
      </Anchor>
      <Group justify="space-between">
        <Group gap="sm">
          <Title order={2}>{data.name}</Title>
          <SystemTypeBadge type={data.type} />
          {data.origin === "polymer_builder" ? (
            <ExecutionStatusTag status={currentStatus(data)} progress={latest?.progress} />
          ) : null}
          {latest?.status === "waiting_for_resources" && latest.scheduler_reason ? (
            <Text size="sm" c="dimmed" data-testid="scheduler-reason">
              {t("detail.schedulerReason", { reason: latest.scheduler_reason })}
            </Text>
          ) : null}
          {data.origin === "polymer_builder" &&
          latest?.stage &&
          (latest.status === "processing" || latest.status === "running") ? (
            <Text size="sm" c="dimmed" data-testid="execution-stage">
              {t("detail.stage", { stage: latest.stage })}
            </Text>
          ) : null}
          {data.origin === "polymer_builder" ? <DynamicsProgress execution={latest} /> : null}
        </Group>
        <Group gap="sm">
          {headerExtras?.(data)}
          <SystemActions system={data} onArchived={onLeave} />
        </Group>
      </Group>
      {data.origin === "polymer_builder" && latest?.notice ? (
        <Alert color="yellow" title={t("detail.noticeTitle")} data-testid="execution-notice">
          {latest.notice}
        </Alert>
      ) : null}
      {data.origin === "polymer_builder" ? (
        <>
          <PolymerBuilderSummary data={data.system_data} />
          <Stack gap="sm">
            <Title order={3}>{t("detail.results")}</Title>
            <SystemResults systemId={data.id} execution={latest} />
          </Stack>
        </>
      ) : (
        otherOrigin(data.id)
      )}
    </Stack>
  );
}
