import { Text } from "@mantine/core";
import type { SystemExecution } from "@polyforge/contracts/system-executions";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { formatDuration, simulatedTime } from "../../lib/formatting/duration";

/** The point an estimate of the time left is taken from: a run, its simulated time, and the time
 * left the engine gave at that simulated time (from its own rate so far; null while it had none). */
export interface TimeLeftPoint {
  executionId: string;
  simulatedNs: number;
  remainingSeconds: number | null;
}

/**
 * The point to estimate from after an update: the update's when its simulated time has moved (or it
 * is another run), else the one held. A time left sent again at the same simulated time comes from a
 * stale point (the engine's clock ran on while the steps it counts did not) and is not taken: it
 * would grow while nothing moved. A first estimate at an unmoved point waits for the next step too.
 */
export function nextTimeLeftPoint(held: TimeLeftPoint | null, update: TimeLeftPoint): TimeLeftPoint {
  if (held === null || held.executionId !== update.executionId) return update;
  if (update.simulatedNs !== held.simulatedNs) return update;
  return held;
}

/** The estimate as shown: held at the last point where the simulation advanced. */
function useSteadyTimeLeft(update: TimeLeftPoint): number | null {
  const [held, setHeld] = useState<TimeLeftPoint | null>(null);
  const next = nextTimeLeftPoint(held, update);
  // React's pattern for state derived from the previous render: set during render, no effect.
  if (next !== held) setHeld(next);
  return next.remainingSeconds;
}

/** While dynamics run: the simulated time done of the run's total and the engine's estimate of the
 * wall time left, refreshed when the simulated time moves; "estimating…" until there is one. */
export function DynamicsProgress({ execution }: { execution: SystemExecution | undefined }) {
  if (execution?.status !== "running") return null;
  const { simulated_ns: done, total_ns: total } = execution;
  if (done === null || done === undefined || !total) return null;
  return <RunningDynamics execution={execution} done={done} total={total} />;
}

function RunningDynamics({ execution, done, total }: { execution: SystemExecution; done: number; total: number }) {
  const { t } = useTranslation("systems");
  const remaining = useSteadyTimeLeft({
    executionId: execution.id,
    simulatedNs: done,
    remainingSeconds: execution.remaining_seconds ?? null,
  });
  const time = simulatedTime(done, total);
  const left =
    remaining === null ? t("detail.timeLeftUnknown") : t("detail.timeLeft", { duration: formatDuration(remaining) });
  return (
    <Text size="sm" c="dimmed" data-testid="execution-dynamics-progress">
      {t("detail.dynamicsProgress", { ...time })} · {left}
    </Text>
  );
}
