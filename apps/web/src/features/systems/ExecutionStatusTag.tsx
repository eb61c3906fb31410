import { Badge } from "@mantine/core";
import { type DisplayGroup, displayGroup } from "@polyforge/contracts/system-executions";
import { useTranslation } from "react-i18next";

const COLORS: Record<DisplayGroup, string> = {
  "not-submitted": "gray",
  "waiting-for-resources": "yellow",
  processing: "blue",
  running: "cyan",
  completed: "green",
  error: "red",
  cancelled: "orange",
};

/** A status tag grouped as SPEC §4 says; a running job shows its progress. */
export function ExecutionStatusTag({ status, progress }: { status: string | undefined; progress?: number }) {
  const { t } = useTranslation("systems");
  const group = displayGroup(status);
  const label =
    group === "running" && progress !== undefined && progress > 0
      ? t("status.runningProgress", { progress: Math.round(progress) })
      : t(`status.${group}`);
  return (
    <Badge color={COLORS[group]} variant="light" data-status={group}>
      {label}
    </Badge>
  );
}
