import { Alert, Box, Button, FileButton, Group, Progress, Stack, Text } from "@mantine/core";
import { UPLOADER_LOCKED_STATUSES } from "@polyforge/contracts/molecular-systems";
import { fileProblem, STRUCTURE_FILE, unsupportedFileTypeMessage } from "@polyforge/contracts/uploads";
import { IconUpload } from "@tabler/icons-react";
import { useQueryClient } from "@tanstack/react-query";
import { useMachine } from "@xstate/react";
import { type DragEvent, useEffect, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { formatFileSize } from "../../lib/formatting/fileSize";
import { SYSTEMS_QUERY_KEY } from "../../lib/notifications/liveUpdates";
import { shownProgress, type UploadMachineState, uploadMachine } from "../../lib/uploads/uploadMachine";
import { type MolecularSystem, systemUploadTarget } from "./molecularSystemApi";
import { StatusBadge, useStatusBadgeText } from "./StatusBadge";

const ACCEPT = STRUCTURE_FILE.extensions.join(",");

/** The stored upload this file continues: same name and size as the interrupted one (SPEC §4). */
function resumableUploadId(system: MolecularSystem, file: File): string | null {
  const data = system.system_data;
  const interrupted = data.status === "uploading" && data.upload_id;
  return interrupted && data.file === file.name && data.file_size === file.size ? data.upload_id : null;
}

/**
 * Definition from a file (SPEC §4 File-based system): a .pdb or .gro up to 2000 MB, checked before
 * anything is sent, uploaded in parts by the upload machine, then validated by the server's job.
 */
export function FileDefinition({ system }: { system: MolecularSystem }) {
  const { t } = useTranslation("molecularSystems");
  const badgeText = useStatusBadgeText();
  const queryClient = useQueryClient();
  const target = useMemo(() => systemUploadTarget(system.id), [system.id]);
  const [snapshot, send] = useMachine(uploadMachine, { input: { target } });
  const [refused, setRefused] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const machine = snapshot.value as UploadMachineState;
  const status = system.system_data.status;
  const problem = system.system_data.problem;

  // The server's status moves with the machine (begin → uploading, complete → pending_validation).
  useEffect(() => {
    if (machine !== "idle") void queryClient.invalidateQueries({ queryKey: SYSTEMS_QUERY_KEY });
  }, [machine, queryClient]);

  const serverLocked = UPLOADER_LOCKED_STATUSES.includes(status) && status !== "uploading";
  const locked =
    machine === "uploading" || serverLocked || (machine === "completed" && status !== "error" && status !== "invalid");

  function choose(file: File | null | undefined) {
    if (!file || locked) return;
    const reason = fileProblem(STRUCTURE_FILE, file.name, file.size);
    setRefused(reason ? refusal(reason) : null);
    if (reason) return;
    send({ type: "START", file, resumeUploadId: resumableUploadId(system, file) });
  }

  // SPEC §5 File input messages, in the locale's words.
  function refusal(reason: string): string {
    return reason === unsupportedFileTypeMessage(STRUCTURE_FILE.extensions)
      ? t("messages.unsupportedFileType", { list: STRUCTURE_FILE.extensions.join(", ") })
      : t("messages.fileTooLarge", { max: STRUCTURE_FILE.maxMegabytes });
  }

  function onDrop(event: DragEvent<HTMLDivElement>) {
    event.preventDefault();
    setDragging(false);
    choose(event.dataTransfer.files[0]);
  }

  const percent = shownProgress(machine, snapshot.context);
  // Once the parts are complete the server validates; until its answer arrives, say so already.
  const shownStatus = machine === "completed" && status === "uploading" ? "pending_validation" : status;
  const interrupted = machine === "idle" && status === "uploading" && system.system_data.upload_id;

  return (
    <Stack gap="md">
      <Box
        onDragOver={(event) => {
          event.preventDefault();
          if (!locked) setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
        p="xl"
        data-testid="file-drop-zone"
        aria-disabled={locked}
        style={{
          border: `2px dashed var(--mantine-color-${dragging ? "blue-5" : "gray-4"})`,
          borderRadius: 8,
          opacity: locked ? 0.6 : 1,
          textAlign: "center",
        }}
      >
        <Stack align="center" gap="xs">
          <IconUpload size={32} stroke={1.5} />
          <Text>{t("file.dropLabel")}</Text>
          <Text size="sm" c="dimmed">
            {t("file.hint", { max: STRUCTURE_FILE.maxMegabytes })}
          </Text>
          <FileButton onChange={choose} accept={ACCEPT} disabled={locked}>
            {(props) => (
              <Button {...props} variant="light" disabled={locked}>
                {t("file.choose")}
              </Button>
            )}
          </FileButton>
        </Stack>
      </Box>

      {refused ? (
        <Alert color="red" role="alert">
          {refused}
        </Alert>
      ) : null}
      {locked && machine !== "uploading" ? (
        <Text size="sm" c="dimmed">
          {t("file.locked")}
        </Text>
      ) : null}

      {snapshot.context.file && machine !== "idle" ? (
        <Text size="sm">
          {t("file.selected", {
            name: snapshot.context.file.name,
            size: formatFileSize(snapshot.context.file.size),
          })}
        </Text>
      ) : system.system_data.file && system.system_data.file_size ? (
        <Text size="sm">
          {t("file.selected", { name: system.system_data.file, size: formatFileSize(system.system_data.file_size) })}
        </Text>
      ) : null}

      {machine === "uploading" ? (
        <Stack gap="xs">
          <Group justify="space-between">
            <StatusBadge status="uploading" label={badgeText("upload", "uploading", percent) ?? ""} />
            <Button variant="default" onClick={() => send({ type: "CANCEL" })}>
              {t("file.cancel")}
            </Button>
          </Group>
          <Progress value={percent} aria-label={badgeText("upload", "uploading", percent) ?? ""} />
        </Stack>
      ) : machine === "error" ? (
        <Stack gap="xs">
          <StatusBadge status="error" label={t("file.uploadFailed")} />
          <Alert color="red" role="alert">
            {t("messages.uploadFailed")}
          </Alert>
          <Group>
            <Button onClick={() => send({ type: "RETRY" })}>{t("file.retry")}</Button>
          </Group>
        </Stack>
      ) : machine === "canceled" ? (
        <Group>
          <Text role="status">{t("messages.uploadCanceled")}</Text>
          <Button variant="light" onClick={() => send({ type: "RETRY" })}>
            {t("file.retry")}
          </Button>
        </Group>
      ) : interrupted ? (
        <Alert color="yellow">
          {t("file.resume", {
            name: system.system_data.file ?? "",
            size: formatFileSize(system.system_data.file_size ?? 0),
          })}
        </Alert>
      ) : null}

      {machine !== "uploading" && machine !== "error" && machine !== "canceled" && !interrupted ? (
        <FileStatus status={shownStatus} problem={problem} />
      ) : null}
    </Stack>
  );
}

/** The problem with its line, unless the engine's message already starts with it. */
function useProblemText() {
  const { t } = useTranslation("molecularSystems");
  return (problem: NonNullable<MolecularSystem["system_data"]["problem"]>) =>
    problem.line && !problem.message.startsWith(`Line ${problem.line}`)
      ? t("file.invalidAt", { line: problem.line, message: problem.message })
      : problem.message;
}

function FileStatus({ status, problem }: { status: string; problem: MolecularSystem["system_data"]["problem"] }) {
  const { t } = useTranslation("molecularSystems");
  const label = useStatusBadgeText()("upload", status);
  const problemText = useProblemText();
  if (!label || status === "uploading") return null;
  return (
    <Stack gap="xs">
      <Group>
        <StatusBadge status={status} label={label} />
      </Group>
      {(status === "invalid" || status === "error") && problem ? (
        <Alert color="red" role="alert">
          <Text>{problemText(problem)}</Text>
          <Text size="sm" mt="xs">
            {t("file.tryAnother")}
          </Text>
        </Alert>
      ) : null}
    </Stack>
  );
}
