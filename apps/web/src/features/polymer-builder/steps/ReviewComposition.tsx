import { Alert, Card, Loader, Stack, Table, Text, Title } from "@mantine/core";
import type { SystemSetupResponse } from "@polyforge/contracts/polymer-builder";
import { useTranslation } from "react-i18next";
import { useDraftComposition } from "../useComposition";

const count = (value: number) => value.toLocaleString("en-US");
const mass = (value: number) => value.toLocaleString("en-US", { minimumFractionDigits: 1, maximumFractionDigits: 1 });

/** The review's composition: the actual number of each unit per chain and in the whole system, and
 * the atoms and mass of a chain and of the system (units measured by RDKit, as the engine joins them). */
export function ReviewComposition({ setup }: { setup: SystemSetupResponse }) {
  const { t } = useTranslation("polymerBuilder");
  const { byPolymer, failed } = useDraftComposition();
  const rows = setup.polymers.map((entry) => ({ entry, composition: byPolymer.get(entry.polymer_id) }));
  const ready = rows.every((row) => row.composition?.chain);
  let body: React.ReactNode;
  if (failed) body = <Alert color="red">{t("create.compositionFailed")}</Alert>;
  else if (!ready) body = <Loader size="sm" aria-label={t("create.compositionLoading")} />;
  else {
    const totals = rows.reduce(
      (sum, { entry, composition }) => ({
        chains: sum.chains + entry.occurrence,
        atoms: sum.atoms + entry.occurrence * (composition?.chain?.atoms ?? 0),
        heavy: sum.heavy + entry.occurrence * (composition?.chain?.heavyAtoms ?? 0),
        mass: sum.mass + entry.occurrence * (composition?.chain?.mass ?? 0),
      }),
      { chains: 0, atoms: 0, heavy: 0, mass: 0 },
    );
    body = (
      <Stack>
        {rows.map(({ entry, composition }) => (
          <Stack key={entry.polymer_id} gap={4}>
            <Text fw={600}>{t("create.chains", { name: entry.name, count: entry.occurrence })}</Text>
            <Table withTableBorder striped aria-label={entry.name}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t("create.unit")}</Table.Th>
                  <Table.Th ta="right">{t("create.perChain")}</Table.Th>
                  <Table.Th ta="right">{t("create.inSystem")}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {composition?.composition.units.map((unit) => (
                  <Table.Tr key={`${unit.blockId}-${unit.role}-${unit.smiles}`}>
                    <Table.Td>{t(`create.roles.${unit.role}`, { name: unit.blockName })}</Table.Td>
                    <Table.Td ta="right">{count(unit.perChain)}</Table.Td>
                    <Table.Td ta="right">{count(unit.perChain * entry.occurrence)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
            <Text size="sm">
              {t("create.chainTotals", {
                atoms: count(composition?.chain?.atoms ?? 0),
                mass: mass(composition?.chain?.mass ?? 0),
              })}
            </Text>
            {composition?.composition.exact === false ? (
              <Text size="sm" c="dimmed">
                {t("create.capsVary")}
              </Text>
            ) : null}
          </Stack>
        ))}
        <Text fw={600} data-testid="system-totals">
          {t("create.systemTotals", {
            chains: count(totals.chains),
            atoms: count(totals.atoms),
            heavy: count(totals.heavy),
            mass: mass(totals.mass),
          })}
        </Text>
      </Stack>
    );
  }
  return (
    <Card withBorder>
      <Title order={5}>{t("create.composition")}</Title>
      <Text size="sm" c="dimmed" mb="xs">
        {t("create.compositionHelp")}
      </Text>
      {body}
    </Card>
  );
}
