import { Text } from "@mantine/core";
import type { SystemExecution } from "@polyforge/contracts/system-executions";
import { useTranslation } from "react-i18next";
import { formatDuration, simulatedTime } from "../../lib/formatting/duration";

/** While dynamics run: the simulated time done of the run's total and the engine's estimate of the
 * wall time left (issue 23), refreshed with every progress update the server pushes. */
export function DynamicsProgress({ execution }: { execution: SystemExecution | undefined }) {
  const { t } = useTranslation("systems");
  if (execution?.status !== "running") return null;
  const { simulated_ns: done, total_ns: total, remaining_seconds: remaining } = execution;
  if (done === null || done === undefined || !total) return null;
  const time = simulatedTime(done, total);
  const left =
    remaining === null || remaining === undefined
      ? t("detail.timeLeftUnknown")
      : t("detail.timeLeft", { duration: formatDuration(remaining) });
  return (
    <Text size="sm" c="dimmed" data-testid="execution-dynamics-progress">
      {t("detail.dynamicsProgress", { ...time })} · {left}
    </Text>
  );
}
