import { Alert, Card, Loader, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import { RESULT_VIEWER_FILES, type SystemExecution } from "@polyforge/contracts/system-executions";
import { lazy, Suspense } from "react";
import { useTranslation } from "react-i18next";
import { useResultText } from "./api/getResultText";
import { ChainSequences } from "./ChainSequences";
import { parseEnergies } from "./energies";
import { ResultProperties } from "./ResultProperties";
import { RunPerformance } from "./RunPerformance";

// Both are heavy (WebGL viewer, plotting): fetched only when a completed run is shown.
const StructureViewer = lazy(() => import("../../components/StructureViewer"));
const EnergyPlots = lazy(() => import("./EnergyPlots"));

const {
  builtStructure: BUILT_STRUCTURE,
  finalStructures: FINAL_STRUCTURES,
  energies: ENERGIES,
  report: REPORT,
} = RESULT_VIEWER_FILES;

function countAtoms(pdb: string): number {
  return pdb.match(/^(ATOM|HETATM)/gm)?.length ?? 0;
}

/** The results of a system's latest execution: its error, or its structures and energy plots. */
export function SystemResults({ systemId, execution }: { systemId: string; execution: SystemExecution | undefined }) {
  const { t } = useTranslation("systems");
  if (execution?.status === "error" || execution?.status === "failed") {
    return (
      <Alert color="red" title={t("detail.processingError", { code: execution.error_code ?? "" })}>
        {execution.error_message}
      </Alert>
    );
  }
  if (execution?.status !== "completed") return <Text c="dimmed">{t("detail.notCompleted")}</Text>;

  const names = new Set(execution.result_files.map((file) => file.name));
  const finalName = FINAL_STRUCTURES.find((name: string) => names.has(name));
  return (
    <Stack gap="lg">
      <Text size="sm" c="dimmed">
        {[
          execution.seed !== null ? `${t("detail.seed")}: ${execution.seed}` : null,
          ...Object.entries(execution.versions)
            .filter(([, version]) => version)
            .map(([tool, version]) => `${tool} ${version}`),
        ]
          .filter(Boolean)
          .join(" · ")}
      </Text>
      <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="lg">
        {names.has(BUILT_STRUCTURE) ? (
          <StructureCard
            systemId={systemId}
            execution={execution}
            name={BUILT_STRUCTURE}
            title={t("detail.builtStructure")}
          />
        ) : null}
        {finalName ? (
          <StructureCard
            systemId={systemId}
            execution={execution}
            name={finalName}
            title={t("detail.finalStructure")}
          />
        ) : null}
      </SimpleGrid>
      {names.has(ENERGIES) ? <EnergiesCard systemId={systemId} execution={execution} /> : null}
      {names.has(REPORT) ? <PropertiesCard systemId={systemId} execution={execution} /> : null}
      {names.has(REPORT) ? <SequencesCard systemId={systemId} execution={execution} /> : null}
      {names.has(REPORT) ? <RunCard systemId={systemId} execution={execution} /> : null}
    </Stack>
  );
}

function StructureCard(props: { systemId: string; execution: SystemExecution; name: string; title: string }) {
  const { t } = useTranslation("systems");
  const pdb = useResultText(props.systemId, props.execution.id, props.name);
  const atoms = pdb.data ? countAtoms(pdb.data) : 0;
  return (
    <Card withBorder radius="md">
      <Title order={5} mb={4}>
        {props.title}
      </Title>
      <Text size="xs" c="dimmed" mb="sm">
        {props.name}
        {pdb.data ? ` · ${t("detail.atoms", { count: atoms })}` : ""}
      </Text>
      {pdb.isError ? <Text c="red">{t("detail.viewerFailed")}</Text> : null}
      {pdb.isPending ? <Loader size="sm" aria-label={t("detail.viewerLoading")} /> : null}
      {pdb.data ? (
        <Suspense fallback={<Loader size="sm" aria-label={t("detail.viewerLoading")} />}>
          <StructureViewer pdb={pdb.data} atoms={atoms} label={props.title} />
        </Suspense>
      ) : null}
    </Card>
  );
}

function PropertiesCard({ systemId, execution }: { systemId: string; execution: SystemExecution }) {
  const report = useResultText(systemId, execution.id, REPORT);
  return <ResultProperties report={report} />;
}

/** The same report.json as the properties card (one request, shared through the query cache). */
function RunCard({ systemId, execution }: { systemId: string; execution: SystemExecution }) {
  const report = useResultText(systemId, execution.id, REPORT);
  return <RunPerformance report={report} />;
}

/** The same report.json again: the sequences of chains drawn one by one. */
function SequencesCard({ systemId, execution }: { systemId: string; execution: SystemExecution }) {
  const report = useResultText(systemId, execution.id, REPORT);
  return <ChainSequences report={report} />;
}

function EnergiesCard({ systemId, execution }: { systemId: string; execution: SystemExecution }) {
  const { t } = useTranslation("systems");
  const csv = useResultText(systemId, execution.id, ENERGIES);
  let body = <Loader size="sm" aria-label={t("loading")} />;
  if (csv.isError) body = <Text c="red">{t("detail.plotsFailed")}</Text>;
  else if (csv.data) {
    try {
      const series = parseEnergies(csv.data);
      body = (
        <Suspense fallback={<Loader size="sm" aria-label={t("loading")} />}>
          <EnergyPlots
            series={series}
            labels={{
              time: t("detail.time"),
              potentialEnergy: t("detail.potentialEnergy"),
              temperature: t("detail.temperature"),
              density: t("detail.density"),
              box: t("detail.box"),
            }}
          />
        </Suspense>
      );
    } catch {
      body = <Text c="red">{t("detail.plotsFailed")}</Text>;
    }
  }
  return (
    <Card withBorder radius="md">
      <Title order={5} mb="sm">
        {t("detail.plots")}
      </Title>
      {body}
    </Card>
  );
}
