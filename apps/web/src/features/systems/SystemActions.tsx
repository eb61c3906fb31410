import { ActionIcon, Button, Group, Modal, Stack, Text, Tooltip } from "@mantine/core";
import {
  CANCELLABLE_STATUSES,
  currentStatus,
  STARTABLE_STATUSES,
  type SystemWithExecutions,
} from "@polyforge/contracts/system-executions";
import { IconDownload, IconPlayerPlay, IconPlayerStop, IconTrash } from "@tabler/icons-react";
import { type ReactNode, useState } from "react";
import { useTranslation } from "react-i18next";
import { toast } from "sonner";
import { failureToast } from "../../lib/api/failureToast";
import { useArchiveSystem } from "./api/archiveSystem";
import { useCancelProcessing } from "./api/cancelProcessing";
import { useDownloadSystemFiles } from "./api/downloadSystemFiles";
import { useStartProcessing } from "./api/startProcessing";

/** Start, cancel, download and archive for one system (SPEC §4 processing actions); the lists
 * refetch after each. Processing actions exist only for polymer-builder systems. */
export function SystemActions({ system, onArchived }: { system: SystemWithExecutions; onArchived?: () => void }) {
  const { t } = useTranslation("systems");
  const status = currentStatus(system);
  const processable = system.origin === "polymer_builder";
  const hasFiles = (system.system_executions.at(-1)?.result_files.length ?? 0) > 0;

  const start = useStartProcessing(system.id, {
    onSuccess: () => toast.success(t("actions.started")),
    onError: (error) => failureToast(t("actions.startFailed"), error),
  });
  const cancel = useCancelProcessing(system.id, {
    onSuccess: () => toast.success(t("actions.canceled")),
    onError: (error) => failureToast(t("actions.cancelFailed"), error),
  });
  const download = useDownloadSystemFiles(system, {
    onSuccess: () => toast.success(t("actions.downloaded")),
    onError: (error) => failureToast(t("actions.downloadFailed"), error),
  });
  const [confirmingArchive, setConfirmingArchive] = useState(false);
  const archive = useArchiveSystem(system.id, {
    onSuccess: () => {
      setConfirmingArchive(false);
      toast.success(t("actions.deleted"));
      onArchived?.();
    },
    onError: (error) => failureToast(t("actions.deleteFailed"), error),
  });

  const action = (label: string, icon: ReactNode, mutation: { mutate: () => void; isPending: boolean }) => (
    <Tooltip label={label}>
      <ActionIcon variant="subtle" aria-label={label} loading={mutation.isPending} onClick={() => mutation.mutate()}>
        {icon}
      </ActionIcon>
    </Tooltip>
  );
  const name = system.name;
  return (
    <Group gap={4} wrap="nowrap">
      {processable && STARTABLE_STATUSES.includes(status)
        ? action(t("actions.start", { name }), <IconPlayerPlay size={18} />, start)
        : null}
      {processable && CANCELLABLE_STATUSES.includes(status)
        ? action(t("actions.cancel", { name }), <IconPlayerStop size={18} />, cancel)
        : null}
      {hasFiles ? action(t("actions.download", { name }), <IconDownload size={18} />, download) : null}
      {action(t("actions.archive", { name }), <IconTrash size={18} />, {
        mutate: () => setConfirmingArchive(true),
        isPending: archive.isPending,
      })}
      <Modal opened={confirmingArchive} onClose={() => setConfirmingArchive(false)} title={t("archiveConfirm.title")}>
        <Stack>
          <Text>{t("archiveConfirm.message", { name })}</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirmingArchive(false)}>
              {t("archiveConfirm.cancel")}
            </Button>
            <Button color="red" loading={archive.isPending} onClick={() => !archive.isPending && archive.mutate()}>
              {t("archiveConfirm.confirm")}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Group>
  );
}
