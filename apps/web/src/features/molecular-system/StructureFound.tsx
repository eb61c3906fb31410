import { Alert, Group, Loader, SimpleGrid, Stack, Table, Title } from "@mantine/core";
import type { StructureSummary } from "@polyforge/contracts/molecular-systems";
import { lazy, Suspense } from "react";
import { useTranslation } from "react-i18next";
import { useStructurePdb } from "./api/getStructurePdb";
import { Fact } from "./Fact";

const StructureViewer = lazy(() => import("../../components/StructureViewer"));

const signed = (charge: number) => (charge > 0 ? `+${charge}` : String(charge));
const edge = (value: number | undefined) => (value ?? 0).toFixed(2);

/** A validated or converted structure: the same 3D viewer as processed systems, and what was found. */
export function StructureFound({
  systemId,
  name,
  summary,
}: {
  systemId: string;
  name: string;
  summary: StructureSummary;
}) {
  const { t } = useTranslation("molecularSystems");
  const viewerFile = summary.viewer_file;
  const pdb = useStructurePdb(systemId, viewerFile);
  const box = summary.box;

  return (
    <Stack gap="md">
      <Title order={3}>{t("found.title")}</Title>
      <SimpleGrid cols={{ base: 2, sm: 3, lg: 6 }}>
        <Fact label={t("found.type")} value={t(`types.${summary.type}`)} />
        <Fact label={t("found.atoms")} value={summary.atoms.toLocaleString("en")} />
        <Fact label={t("found.molecules")} value={summary.molecules.toLocaleString("en")} />
        <Fact label={t("found.formula")} value={summary.formula} />
        <Fact
          label={t("found.netCharge")}
          value={summary.net_charge === null ? t("found.unknown") : signed(summary.net_charge)}
        />
        <Fact
          label={t("found.cell")}
          value={box ? t("found.cellValue", { a: edge(box[0]), b: edge(box[1]), c: edge(box[2]) }) : t("found.noCell")}
        />
      </SimpleGrid>
      <Table withTableBorder striped aria-label={t("found.title")}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t("found.kind")}</Table.Th>
            <Table.Th>{t("found.count")}</Table.Th>
            <Table.Th>{t("found.kindAtoms")}</Table.Th>
            <Table.Th>{t("found.kindFormula")}</Table.Th>
            <Table.Th>{t("found.kindCharge")}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {summary.kinds.map((kind) => (
            <Table.Tr key={`${kind.name}-${kind.formula}`}>
              <Table.Td>{kind.name}</Table.Td>
              <Table.Td>{kind.count.toLocaleString("en")}</Table.Td>
              <Table.Td>{kind.atoms.toLocaleString("en")}</Table.Td>
              <Table.Td>{kind.formula}</Table.Td>
              <Table.Td>{kind.charge === null ? t("found.unknown") : signed(kind.charge)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {viewerFile === null ? null : pdb.isError ? (
        <Alert color="red">{t("found.viewerError")}</Alert>
      ) : pdb.data ? (
        <Suspense fallback={<Loader aria-label={t("found.viewerLoading")} />}>
          <StructureViewer pdb={pdb.data} atoms={summary.atoms} label={t("found.viewerLabel", { name })} />
        </Suspense>
      ) : (
        <Group>
          <Loader aria-label={t("found.viewerLoading")} />
        </Group>
      )}
    </Stack>
  );
}
