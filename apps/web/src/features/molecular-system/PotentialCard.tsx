import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Card,
  Group,
  Modal,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Tooltip,
} from "@mantine/core";
import {
  CANCELLABLE_POTENTIAL_STATUSES,
  type GeneratedPotentialResult,
  type PotentialResponse,
  potentialStatus,
  potentialZipName,
} from "@polyforge/contracts/potentials";
import { sanitizeSystemName } from "@polyforge/contracts/systems";
import { TOPOLOGY_FILE } from "@polyforge/contracts/uploads";
import { IconDownload, IconLock, IconTrash } from "@tabler/icons-react";
import { useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { toast } from "sonner";
import { failureToast } from "../../lib/api/failureToast";
import { useCancelPotential } from "./api/cancelPotential";
import { useDeletePotential } from "./api/deletePotential";
import { useDownloadPotentialFiles } from "./api/downloadPotentialFiles";
import type { MolecularSystem } from "./api/getMolecularSystem";
import { potentialUploadTarget } from "./api/uploadPotential";
import { Fact } from "./Fact";
import { FileUpload } from "./FileUpload";
import { StatusBadge, useStatusBadgeText } from "./StatusBadge";

const signed = (value: number) => (value > 0 ? `+${value}` : String(value));
const charge = (value: number) => (value > 0 ? `+${value.toFixed(3)}` : value.toFixed(3));
const energy = (value: number | null) =>
  value === null ? null : value.toLocaleString("en", { maximumFractionDigits: 1, minimumFractionDigits: 1 });

/** The status tag's text (SPEC §4 Potential statuses): a generated potential shows its execution's
 * status, an uploaded one its file's, pending_upload shown 'Not submitted'. */
export function usePotentialStatusText() {
  const { t } = useTranslation("molecularSystems");
  const fileBadge = useStatusBadgeText();
  return (potential: PotentialResponse, percent = 0): string => {
    const status = potentialStatus(potential);
    if (potential.origin === "upload" && status !== "pending_upload")
      return fileBadge("upload", status, percent) ?? t("potentials.status.not_submitted");
    const progress = potential.potential_execution?.progress ?? 0;
    if ((status === "running" || status === "processing") && progress > 0)
      return t("potentials.status.progress", {
        status: t(`potentials.status.${status}`),
        progress: Math.round(progress),
      });
    return t(`potentials.status.${status}`, { defaultValue: t("potentials.status.not_submitted") });
  };
}

interface PotentialProps {
  system: MolecularSystem;
  potential: PotentialResponse;
  /** The .top chosen in the Upload form, sent as soon as the potential exists. */
  pendingFile?: File;
}

/** One potential of the system: read-only once saved (SPEC §2), its live status (an uploaded one's
 * beside its file), its results or its file, and Delete. */
export function PotentialCard({ system, potential, pendingFile }: PotentialProps) {
  const { t } = useTranslation("molecularSystems");
  const statusText = usePotentialStatusText();
  const status = potentialStatus(potential);
  // Once its file is complete an uploaded potential is saved: locked, whatever the check found.
  const locked = potential.origin === "upload" && !potential.is_draft;

  return (
    <Card withBorder padding="lg" radius="md" data-potential-id={potential.id} aria-label={potential.name}>
      <Stack gap="md">
        <Group justify="space-between" wrap="nowrap" align="flex-start">
          <Stack gap={4}>
            <Group gap="xs">
              <Text fw={600} size="lg">
                {potential.name}
              </Text>
              <Badge variant="outline" color="gray">
                {t(`potentials.origin_${potential.origin}`)}
              </Badge>
              {locked ? (
                <Tooltip label={t("potentials.lockedHint")}>
                  <Badge variant="light" color="gray" leftSection={<IconLock size={12} />}>
                    {t("potentials.locked")}
                  </Badge>
                </Tooltip>
              ) : null}
            </Group>
            {potential.description ? (
              <Text size="sm" c="dimmed">
                {potential.description}
              </Text>
            ) : null}
          </Stack>
          <Group gap="xs" wrap="nowrap">
            {potential.origin === "generate" ? <StatusBadge status={status} label={statusText(potential)} /> : null}
            <DeletePotential system={system} potential={potential} />
          </Group>
        </Group>
        {potential.origin === "generate" ? (
          <GeneratedPotential system={system} potential={potential} />
        ) : (
          <UploadedPotential system={system} potential={potential} pendingFile={pendingFile} />
        )}
      </Stack>
    </Card>
  );
}

function GeneratedPotential({ system, potential }: { system: MolecularSystem; potential: PotentialResponse }) {
  const { t } = useTranslation("molecularSystems");
  const asked = potential.antechamber_potential;
  const execution = potential.potential_execution;
  const result = execution?.result ?? null;
  const download = useDownloadPotentialFiles(system.id, potential.id, {
    onSuccess: () => toast.success(t("potentials.downloaded")),
    onError: (error) => failureToast(t("potentials.downloadFailed"), error),
  });
  const cancel = useCancelPotential(system.id, potential.id, {
    onSuccess: () => toast.success(t("potentials.canceled")),
    onError: (error) => failureToast(t("potentials.cancelFailed"), error),
  });
  const failed = execution && (execution.status === "failed" || execution.status === "error");
  const cancellable = execution !== null && CANCELLABLE_POTENTIAL_STATUSES.includes(execution.status);
  return (
    <Stack gap="md">
      {asked ? (
        <SimpleGrid cols={{ base: 1, xs: 3 }}>
          <Fact label={t("potentials.forceField")} value={asked.force_field} />
          <Fact label={t("potentials.charge")} value={signed(asked.charge)} />
          <Fact label={t("potentials.minimizationSteps")} value={asked.minimization_steps.toLocaleString("en")} />
        </SimpleGrid>
      ) : null}
      {execution?.status === "waiting_for_resources" && execution.scheduler_reason ? (
        <Text size="sm" c="dimmed">
          {t("potentials.waitingReason", { reason: execution.scheduler_reason })}
        </Text>
      ) : null}
      {cancellable ? (
        <Group gap="sm">
          {execution.stage ? (
            <Text size="sm" c="dimmed">
              {t("potentials.stage", { stage: execution.stage })}
            </Text>
          ) : null}
          <Button
            variant="default"
            size="xs"
            loading={cancel.isPending}
            onClick={() => !cancel.isPending && cancel.mutate()}
          >
            {t("potentials.cancelGeneration")}
          </Button>
        </Group>
      ) : null}
      {failed ? (
        <Alert color="red" role="alert" title={t("potentials.failedTitle")}>
          {execution.error_message ?? t("potentials.failedNoReason")}
        </Alert>
      ) : null}
      {result ? <GeneratedResult result={result} /> : null}
      {execution?.status === "completed" && execution.result_files.length > 0 ? (
        <Group>
          <Button
            variant="light"
            leftSection={<IconDownload size={16} />}
            loading={download.isPending}
            onClick={() => download.mutate(potentialZipName(sanitizeSystemName(potential.name)))}
          >
            {t("potentials.download")}
          </Button>
          <Text size="sm" c="dimmed">
            {t("potentials.downloadHint")}
          </Text>
        </Group>
      ) : null}
    </Stack>
  );
}

function GeneratedResult({ result }: { result: GeneratedPotentialResult }) {
  const { t } = useTranslation("molecularSystems");
  return (
    <Stack gap="sm">
      <SimpleGrid cols={{ base: 2, sm: 3, lg: 5 }}>
        <Fact label={t("potentials.totalCharge")} value={charge(result.total_charge)} />
        <Fact
          label={t("potentials.minimizedEnergy")}
          value={
            result.minimized_energy_kj_mol === null
              ? t("potentials.notMinimized")
              : t("potentials.energyValue", { value: energy(result.minimized_energy_kj_mol) })
          }
        />
        <Fact
          label={t("potentials.initialEnergy")}
          value={
            result.energy_before_minimization_kj_mol === null
              ? t("found.unknown")
              : t("potentials.energyValue", { value: energy(result.energy_before_minimization_kj_mol) })
          }
        />
        <Fact label={t("found.atoms")} value={result.atoms.toLocaleString("en")} />
        <Fact label={t("found.molecules")} value={result.molecules.toLocaleString("en")} />
      </SimpleGrid>
      <Text size="sm" c="dimmed">
        {t("potentials.chargeMethodValue", { method: result.charge_method })}
      </Text>
      <Table withTableBorder striped aria-label={t("potentials.kindsTitle")}>
        <Table.Caption>{t("potentials.kindsTitle")}</Table.Caption>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t("found.kind")}</Table.Th>
            <Table.Th>{t("potentials.copies")}</Table.Th>
            <Table.Th>{t("found.kindAtoms")}</Table.Th>
            <Table.Th>{t("found.kindCharge")}</Table.Th>
            <Table.Th>{t("potentials.atomCharges")}</Table.Th>
            <Table.Th>{t("potentials.atomTypes")}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {result.kinds.map((kind) => (
            <Table.Tr key={kind.name}>
              <Table.Td>{kind.name}</Table.Td>
              <Table.Td>{kind.copies.toLocaleString("en")}</Table.Td>
              <Table.Td>{kind.atoms.toLocaleString("en")}</Table.Td>
              <Table.Td>{signed(kind.net_charge)}</Table.Td>
              <Table.Td>
                {t("potentials.chargeRange", { min: charge(kind.min_atom_charge), max: charge(kind.max_atom_charge) })}
              </Table.Td>
              <Table.Td>
                <Group gap={4}>
                  {kind.atom_types.map((type) => (
                    <Badge key={type} variant="light" color="gray" tt="none" size="sm">
                      {type}
                    </Badge>
                  ))}
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}

function UploadedPotential({ system, potential, pendingFile }: PotentialProps) {
  const { t } = useTranslation("molecularSystems");
  const badgeText = useStatusBadgeText();
  const target = useMemo(() => potentialUploadTarget(system.id, potential.id), [system.id, potential.id]);
  const uploaded = potential.uploaded_potential;
  const download = useDownloadPotentialFiles(system.id, potential.id, {
    onSuccess: () => toast.success(t("potentials.downloaded")),
    onError: (error) => failureToast(t("potentials.downloadFailed"), error),
  });
  if (!uploaded) return null;
  const topology = uploaded.topology;
  return (
    <Stack gap="md">
      <FileUpload
        kind={TOPOLOGY_FILE}
        target={target}
        stored={uploaded}
        initialFile={pendingFile}
        readOnly={!potential.is_draft}
        invalidHint={t("potentials.invalidHint")}
        dropLabel={t("potentials.dropLabel")}
        badge={(status, percent) =>
          status === "pending_upload" ? t("potentials.status.not_submitted") : badgeText("upload", status, percent)
        }
      />
      {uploaded.status === "valid" && topology ? (
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          <Fact label={t("found.atoms")} value={topology.atoms.toLocaleString("en")} />
          <Fact label={t("found.molecules")} value={topology.molecules.toLocaleString("en")} />
          <Fact label={t("potentials.moleculeTypes")} value={topology.molecule_types.join(", ")} />
        </SimpleGrid>
      ) : null}
      {uploaded.status === "valid" && uploaded.file ? (
        <Group>
          <Button
            variant="light"
            leftSection={<IconDownload size={16} />}
            loading={download.isPending}
            onClick={() => download.mutate(uploaded.file ?? "potential.top")}
          >
            {t("potentials.downloadTopology")}
          </Button>
        </Group>
      ) : null}
    </Stack>
  );
}

function DeletePotential({ system, potential }: { system: MolecularSystem; potential: PotentialResponse }) {
  const { t } = useTranslation("molecularSystems");
  const [confirming, setConfirming] = useState(false);
  const remove = useDeletePotential(system.id, potential.id, {
    onSuccess: () => {
      setConfirming(false);
      toast.success(t("potentials.deleted"));
    },
    onError: (error) => failureToast(t("potentials.deleteFailed"), error),
  });
  const label = t("potentials.delete", { name: potential.name });
  return (
    <>
      <Tooltip label={label}>
        <ActionIcon variant="subtle" color="red" aria-label={label} onClick={() => setConfirming(true)}>
          <IconTrash size={18} />
        </ActionIcon>
      </Tooltip>
      <Modal opened={confirming} onClose={() => setConfirming(false)} title={t("potentials.deleteConfirmTitle")}>
        <Stack>
          <Text>{t("potentials.deleteConfirm", { name: potential.name })}</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirming(false)}>
              {t("potentials.cancel")}
            </Button>
            <Button color="red" loading={remove.isPending} onClick={() => !remove.isPending && remove.mutate()}>
              {t("potentials.deleteConfirmButton")}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
