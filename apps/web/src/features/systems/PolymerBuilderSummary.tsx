import { Card, Group, List, SimpleGrid, Stack, Table, Text, Title } from "@mantine/core";
import { polymerForceFieldLabel } from "@polyforge/contracts/polymers";
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";

/** The system_data of a polymer-builder system (SPEC §3), as the server froze it on finish. */
interface PolymerBuilderData {
  polymers?: Array<{
    id: string;
    name: string;
    occurrence: number;
    force_field: string;
    /** Frozen since issue 22; the meso fraction for atactic only. */
    tacticity?: { kind: string; meso_fraction?: number };
    segments: Array<{
      id: string;
      name: string;
      occurrence: number;
      blocks: Array<{ building_block_id: string; name: string; occurrence: number | null; ratio: number | null }>;
    }>;
  }>;
  [field: string]: unknown;
}

const SIMULATION_FIELDS = [
  "simulation",
  "random_seed",
  "minimization",
  "minimization_steps",
  "dynamics",
  "dynamics_steps",
  "temperature",
  "ensemble",
  "pressure",
  "equilibration",
] as const;
const SETUP_FIELDS = [
  "construction_order",
  "cell_dimension_selector",
  "density",
  "cell_sides",
  "potential_wall_z",
] as const;

/** A tacticity other than the default (atactic 0.5, also what a system frozen before it had gets). */
function chosenTacticity(tacticity: { kind: string; meso_fraction?: number } | undefined): boolean {
  return tacticity !== undefined && !(tacticity.kind === "atactic" && tacticity.meso_fraction === 0.5);
}

type SummaryPolymer = NonNullable<PolymerBuilderData["polymers"]>[number];

/** The read-only summary of a polymer-builder system: simulation parameters, system setup, and
 * the polymers with their segments and building blocks. */
export function PolymerBuilderSummary({ data }: { data: Record<string, unknown> }) {
  const { t } = useTranslation("systems");
  const systemData = data as PolymerBuilderData;
  return (
    <Stack gap="lg">
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
        <Card withBorder radius="md">
          <Title order={4} mb="sm">
            {t("detail.simulation")}
          </Title>
          <FieldTable data={systemData} fields={SIMULATION_FIELDS} />
        </Card>
        <Card withBorder radius="md">
          <Title order={4} mb="sm">
            {t("detail.setup")}
          </Title>
          <FieldTable
            data={systemData}
            fields={
              // Only the cell dimension the user chose: a density or three sides.
              SETUP_FIELDS.filter((field) =>
                field === "density" || field === "cell_sides"
                  ? (field === "density") === (systemData.cell_dimension_selector === "density")
                  : true,
              )
            }
          />
        </Card>
      </SimpleGrid>
      <Card withBorder radius="md">
        <Title order={4} mb="sm">
          {t("detail.polymers")}
        </Title>
        <Stack gap="md">
          {(systemData.polymers ?? []).map((polymer) => (
            <PolymerEntry key={`${polymer.id}-${polymer.name}`} polymer={polymer} />
          ))}
        </Stack>
      </Card>
    </Stack>
  );
}

/** Fields with their values (pressure only for NPT); enumerated values read as words. */
function FieldTable({ data, fields }: { data: PolymerBuilderData; fields: readonly string[] }) {
  const { t } = useTranslation("systems");
  const show = (value: unknown, field: string): ReactNode => {
    if (value === null || value === undefined || value === "") return "—";
    if (typeof value === "boolean") return t(value ? "detail.yes" : "detail.no");
    if (Array.isArray(value)) return value.join(" × ");
    // Enumerated values ('as_listed_in_components', 'cell_sides') read as words, not as codes.
    if (typeof value === "string") return t(`detail.values.${field}.${value}`, { defaultValue: value });
    return String(value);
  };
  return (
    <Table withRowBorders={false} verticalSpacing={4}>
      <Table.Tbody>
        {fields
          .filter((field) => field !== "pressure" || data.ensemble === "NPT")
          .map((field) => (
            <Table.Tr key={field}>
              <Table.Td c="dimmed" w="55%">
                {t(`detail.fields.${field}`)}
              </Table.Td>
              <Table.Td>{show(data[field], field)}</Table.Td>
            </Table.Tr>
          ))}
      </Table.Tbody>
    </Table>
  );
}

/** A polymer with its copies, force field and chosen tacticity, then its segments and their blocks. */
function PolymerEntry({ polymer }: { polymer: SummaryPolymer }) {
  const { t } = useTranslation("systems");
  return (
    <Stack gap={4}>
      <Group gap="sm">
        <Text fw={600}>{polymer.name}</Text>
        <Text c="dimmed" size="sm">
          {t("detail.copies", { count: polymer.occurrence })}
        </Text>
        <Text c="dimmed" size="sm">
          {t("detail.forceField", { forceField: polymerForceFieldLabel(polymer.force_field) })}
        </Text>
        {chosenTacticity(polymer.tacticity) ? (
          <Text c="dimmed" size="sm">
            {polymer.tacticity?.kind === "atactic"
              ? t("detail.atactic", { meso: polymer.tacticity.meso_fraction })
              : t(`detail.tacticities.${polymer.tacticity?.kind}`, { defaultValue: polymer.tacticity?.kind })}
          </Text>
        ) : null}
      </Group>
      <List size="sm" withPadding>
        {polymer.segments.map((segment) => (
          <List.Item key={`${segment.id}-${segment.name}`}>
            {t("detail.segment", { name: segment.name, occurrence: segment.occurrence })}
            <List size="sm" withPadding>
              {segment.blocks.map((block) => (
                <List.Item key={block.building_block_id}>
                  {block.ratio !== null && block.ratio !== undefined
                    ? t("detail.blockRatio", { name: block.name, ratio: block.ratio })
                    : t("detail.block", { name: block.name, count: block.occurrence ?? 1 })}
                </List.Item>
              ))}
            </List>
          </List.Item>
        ))}
      </List>
    </Stack>
  );
}
