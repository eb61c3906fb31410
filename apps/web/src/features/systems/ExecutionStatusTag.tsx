import { Badge, Tooltip } from "@mantine/core";
import { displayGroup } from "@polyforge/contracts/system-executions";
import { useTranslation } from "react-i18next";
import { STATUS_GROUP_COLORS } from "../../lib/formatting/statusColors";

const UNCUT = { root: { maxWidth: "none", flexShrink: 0, overflow: "visible" }, label: { overflow: "visible" } };

export interface ExecutionStatusTagProps {
  status: string | undefined;
  progress?: number;
  /** Why the run failed; shown on hover. */
  error?: string | null;
}

/** A status tag grouped as SPEC §4 says; a running job shows its progress, a failed one its reason. */
export function ExecutionStatusTag({ status, progress, error }: ExecutionStatusTagProps) {
  const { t } = useTranslation("systems");
  const group = displayGroup(status);
  const label =
    group === "running" && progress !== undefined && progress > 0
      ? t("status.runningProgress", { progress: Math.round(progress) })
      : t(`status.${group}`);
  const tag = (
    // Never cut ('WAITING FOR RES…'): the tag keeps its whole label and the column makes room.
    <Badge color={STATUS_GROUP_COLORS[group]} variant="light" data-status={group} styles={UNCUT}>
      {label}
    </Badge>
  );
  return group === "error" && error ? (
    <Tooltip label={error} multiline w={320}>
      {tag}
    </Tooltip>
  ) : (
    tag
  );
}
