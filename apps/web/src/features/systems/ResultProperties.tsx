import { Loader, SimpleGrid, Stack, Table, Text } from "@mantine/core";
import type { TFunction } from "i18next";
import { lazy, Suspense } from "react";
import { useTranslation } from "react-i18next";
import { type ChainProperties, type MeasuredProperties, parseMeasuredProperties } from "./properties";
import { ReportCard } from "./ReportCard";

// uPlot is heavy: the C(m) plot shares the lazily loaded plotting module with the energy plots.
const Plot = lazy(() => import("./EnergyPlots").then((module) => ({ default: module.Plot })));

// Rounded to `digits`; a value that rounds to zero shows as 0, not -0.000.
const fixed = (value: number | null | undefined, digits = 2) =>
  value === null || value === undefined ? "—" : (Number(value.toFixed(digits)) || 0).toFixed(digits);
const percent = (value: number) => `${Math.round(value * 100)} %`;

/** report.json's measured properties beside literature values (loading, failure and absence included). */
export function ResultProperties({ report }: { report: { data?: string; isError: boolean } }) {
  const { t } = useTranslation("systems");
  let body = <Loader size="sm" aria-label={t("loading")} />;
  if (report.isError) body = <Text c="red">{t("detail.propertiesFailed")}</Text>;
  else if (report.data !== undefined) {
    let properties: MeasuredProperties | null = null;
    try {
      properties = parseMeasuredProperties(report.data);
      body = properties ? (
        <PropertiesBody properties={properties} />
      ) : (
        <Text c="dimmed">{t("detail.noProperties")}</Text>
      );
    } catch {
      body = <Text c="red">{t("detail.propertiesFailed")}</Text>;
    }
  }
  return (
    <ReportCard title={t("detail.properties")} note={t("detail.propertiesNote")}>
      {body}
    </ReportCard>
  );
}

function PropertiesBody({ properties }: { properties: MeasuredProperties }) {
  const { t } = useTranslation("systems");
  const density = properties.density_g_cm3;
  const reference = properties.chains.find((chain) => chain.reference)?.reference;
  const sources = new Set(
    properties.chains.flatMap((chain) =>
      chain.reference ? [chain.reference.c_infinity.source, chain.reference.density_g_cm3.source] : [],
    ),
  );
  return (
    <Stack gap="md">
      <Table withTableBorder verticalSpacing={4} data-testid="measured-properties">
        <Table.Thead>
          <Table.Tr>
            <Table.Th />
            <Table.Th>{t("detail.properties")}</Table.Th>
            <Table.Th>{t("detail.reference")}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {density ? (
            <Table.Tr>
              <Table.Td c="dimmed">{t("detail.densityMeasured")}</Table.Td>
              <Table.Td>{densityText(density, t)}</Table.Td>
              <Table.Td>
                {reference ? `${t("detail.referenceRange", reference.density_g_cm3)} (${reference.polymer})` : "—"}
              </Table.Td>
            </Table.Tr>
          ) : null}
          {properties.chains.map((chain) => (
            <ChainRows key={chain.name} chain={chain} />
          ))}
        </Table.Tbody>
      </Table>
      <SimpleGrid cols={{ base: 1, lg: 2 }}>
        {properties.chains
          .filter((chain) => chain.internal_distances)
          .map((chain) => (
            <Suspense key={chain.name} fallback={<Loader size="sm" aria-label={t("loading")} />}>
              <Stack gap={4}>
                <Text size="sm">
                  {chain.name}: {t("detail.internalDistances")}
                </Text>
                <Plot
                  time={chain.internal_distances!.m}
                  values={chain.internal_distances!.c_m}
                  xLabel={t("detail.m")}
                  yLabel={t("detail.cm")}
                  testId="internal-distance-plot"
                />
              </Stack>
            </Suspense>
          ))}
      </SimpleGrid>
      {sources.size ? (
        <Text size="xs" c="dimmed">
          {t("detail.sources", { sources: [...sources].join("; ") })}
        </Text>
      ) : null}
    </Stack>
  );
}

/** The density without dynamics (the cell's), in a fixed cell (no barostat), or over the run's last part. */
function densityText(density: NonNullable<MeasuredProperties["density_g_cm3"]>, t: TFunction<"systems">): string {
  const mean = fixed(density.mean, 3);
  if (density.from === "cell") return t("detail.densityCell", { mean });
  if (density.from === "fixed cell") return t("detail.densityFixedCell", { mean });
  return t("detail.densityValue", {
    mean,
    std: fixed(density.std, 3),
    part: density.part ?? "",
    drift: fixed(density.drift_per_ns, 3),
  });
}

// A jackknife error above this share of C∞ says the chains are too few or short to extrapolate.
const UNCERTAIN_C_INFINITY = 0.15;

function cInfinityText(
  distances: { c_infinity: number | null; c_infinity_error?: number | null },
  t: TFunction<"systems">,
): string {
  const { c_infinity: value, c_infinity_error: error } = distances;
  if (value === null || error === null || error === undefined) return fixed(value);
  const key = error > UNCERTAIN_C_INFINITY * Math.abs(value) ? "detail.cInfinityUncertain" : "detail.cInfinityValue";
  return t(key, { value: fixed(value), error: fixed(error) });
}

function ChainRows({ chain }: { chain: ChainProperties }) {
  const { t } = useTranslation("systems");
  const row = (label: string, value: React.ReactNode, reference: React.ReactNode = "—") => (
    <Table.Tr key={label}>
      <Table.Td c="dimmed" pl="lg">
        {label}
      </Table.Td>
      <Table.Td>{value}</Table.Td>
      <Table.Td>{reference}</Table.Td>
    </Table.Tr>
  );
  const torsions = chain.torsions;
  return (
    <>
      <Table.Tr>
        <Table.Td colSpan={3} fw={600}>
          {t("detail.chainKind")}: {chain.name} ({t("detail.copiesMeasured")} {chain.copies})
        </Table.Td>
      </Table.Tr>
      {row(
        t("detail.radiusOfGyration"),
        // A spread over copies only when there are copies to spread over.
        chain.copies > 1
          ? `${fixed(chain.radius_of_gyration_a.mean)} ± ${fixed(chain.radius_of_gyration_a.std)}`
          : fixed(chain.radius_of_gyration_a.mean),
      )}
      {chain.end_to_end_distance_a
        ? row(t("detail.endToEnd"), fixed(chain.end_to_end_distance_a.root_mean_square))
        : null}
      {chain.internal_distances
        ? row(
            t("detail.cInfinity"),
            chain.internal_distances.c_infinity_note ?? cInfinityText(chain.internal_distances, t),
            chain.reference ? t("detail.referenceRange", chain.reference.c_infinity) : "—",
          )
        : null}
      {chain.internal_distances ? row(t("detail.cN"), fixed(chain.internal_distances.c_n)) : null}
      {torsions?.all
        ? row(
            t("detail.torsions"),
            <Stack gap={0}>
              {Object.entries(torsions.by_atoms).map(([atoms, p]) => (
                <Text key={atoms} size="sm">
                  {t("detail.torsionsByAtoms", {
                    atoms,
                    trans: percent(p.trans),
                    plus: percent(p.gauche_plus),
                    minus: percent(p.gauche_minus),
                  })}
                </Text>
              ))}
            </Stack>,
          )
        : null}
      {torsions && torsions.consecutive_gauche_plus_minus !== null
        ? row(t("detail.gaucheGauche"), percent(torsions.consecutive_gauche_plus_minus))
        : null}
      {chain.meso_fraction && chain.meso_fraction.value !== null
        ? row(t("detail.meso"), `${fixed(chain.meso_fraction.value)} (${chain.meso_fraction.dyads})`)
        : null}
      {chain.note ? row(t("detail.notLinear"), "—") : null}
    </>
  );
}
