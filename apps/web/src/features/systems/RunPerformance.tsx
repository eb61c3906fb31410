import { Table } from "@mantine/core";
import { useTranslation } from "react-i18next";
import { ReportCard } from "./ReportCard";
import { dynamicsMethods, parseRunPerformance, RUN_STAGES, stageTime } from "./runPerformance";

const STAGE_LABELS = {
  build_s: "detail.stageBuild",
  parametrisation_s: "detail.stageParametrisation",
  minimisation_s: "detail.stageMinimisation",
  dynamics_s: "detail.stageDynamics",
} as const;

/** The time each stage of the run took, the engine and platform it ran on, how its dynamics ran
 * (integrator, thermostat, barostat as the run recorded them) and their speed, from report.json;
 * nothing when the report holds none of it (or is still loading). */
export function RunPerformance({ report }: { report: { data?: string } }) {
  const { t } = useTranslation("systems");
  const performance = report.data === undefined ? null : parseRunPerformance(report.data);
  if (!performance) return null;
  const methods = report.data === undefined ? [] : dynamicsMethods(report.data);
  const stages = RUN_STAGES.filter((stage) => performance[stage] !== undefined);
  const engine = [
    performance.engine,
    performance.platform,
    performance.threads !== undefined ? t("detail.threads", { count: performance.threads }) : undefined,
  ].filter(Boolean);
  const row = (label: string, value: string) => (
    <Table.Tr key={label}>
      <Table.Td c="dimmed">{label}</Table.Td>
      <Table.Td>{value}</Table.Td>
    </Table.Tr>
  );
  return (
    <ReportCard title={t("detail.run")} note={t("detail.runNote")}>
      <Table withTableBorder verticalSpacing={4} data-testid="run-performance">
        <Table.Tbody>
          {stages.map((stage) => row(t(STAGE_LABELS[stage]), stageTime(performance[stage] as number)))}
          {engine.length ? row(t("detail.engine"), engine.join(" · ")) : null}
          {performance.minimisation_engine && performance.minimisation_engine !== performance.engine
            ? row(t("detail.minimisationEngine"), performance.minimisation_engine)
            : null}
          {methods.length ? row(t("detail.dynamicsMethod"), methods.join("; ")) : null}
          {performance.ns_per_day !== undefined
            ? row(t("detail.speed"), t("detail.nsPerDay", { value: performance.ns_per_day.toFixed(2) }))
            : null}
        </Table.Tbody>
      </Table>
    </ReportCard>
  );
}
