import { Alert, Box, Button, FileButton, Group, Progress, Stack, Text } from "@mantine/core";
import { type StructureProblem, UPLOADER_LOCKED_STATUSES } from "@polyforge/contracts/molecular-systems";
import type { UploadFileKind } from "@polyforge/contracts/uploads";
import { IconUpload } from "@tabler/icons-react";
import { useQueryClient } from "@tanstack/react-query";
import { useMachine } from "@xstate/react";
import { type DragEvent, useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { SYSTEMS_QUERY_KEY } from "../../lib/api/systems";
import { formatFileSize } from "../../lib/formatting/fileSize";
import { shownProgress, type UploadMachineState, uploadMachine } from "../../lib/uploads/uploadMachine";
import type { UploadTarget } from "../../lib/uploads/uploadTarget";
import { useFileRefusal } from "./fileRefusal";
import { StatusBadge } from "./StatusBadge";

/** What the server holds about the upload: its status, the file begun, and why it was refused. */
export interface StoredUpload {
  status: string;
  file: string | null;
  file_size: number | null;
  upload_id: string | null;
  problem: StructureProblem | null;
}

export interface FileUploadProps {
  /** Extensions and size limit (SPEC §9: structures .pdb/.gro 2000 MB, topologies .top 4000 MB). */
  kind: UploadFileKind;
  target: UploadTarget;
  stored: StoredUpload;
  /** The drop zone's invitation ('Drop a .pdb or .gro file here, or choose one'). */
  dropLabel: string;
  /** The badge text of a status (null: no badge), with the upload's percent. */
  badge: (status: string, percent: number) => string | null;
  /** Locked for good whatever the status (a saved uploaded potential, SPEC §2): no drop zone. */
  readOnly?: boolean;
  /** A file chosen before the upload target existed (the Upload potential form): sent at once. */
  initialFile?: File;
  /** What to do after a refused file (default: choose a corrected one). */
  invalidHint?: string;
}

/** The stored upload this file continues: same name and size as the interrupted one (SPEC §4). */
function resumableUploadId(stored: StoredUpload, file: File): string | null {
  const interrupted = stored.status === "uploading" && stored.upload_id;
  return interrupted && stored.file === file.name && stored.file_size === file.size ? stored.upload_id : null;
}

/** No new file while one is sent, validated or accepted; an error or a refused file takes another. */
function uploaderLocked(machine: UploadMachineState, status: string): boolean {
  const serverLocked = UPLOADER_LOCKED_STATUSES.includes(status) && status !== "uploading";
  return (
    machine === "uploading" || serverLocked || (machine === "completed" && status !== "error" && status !== "invalid")
  );
}

/** The upload machine for a target; the server's status is refetched as the machine moves, and a
 * file chosen before the target existed is sent once. */
function useUpload(target: UploadTarget, initialFile: File | undefined) {
  const queryClient = useQueryClient();
  const [snapshot, send] = useMachine(uploadMachine, { input: { target } });
  const machine = snapshot.value as UploadMachineState;

  // The server's status moves with the machine (begin → uploading, complete → pending_validation).
  useEffect(() => {
    if (machine !== "idle") void queryClient.invalidateQueries({ queryKey: SYSTEMS_QUERY_KEY });
  }, [machine, queryClient]);

  // The form's file goes once, when the potential it belongs to has just been created.
  const sentInitial = useRef(false);
  useEffect(() => {
    if (!initialFile || sentInitial.current) return;
    sentInitial.current = true;
    send({ type: "START", file: initialFile, resumeUploadId: null });
  }, [initialFile, send]);

  return { snapshot, send, machine };
}

/**
 * One file checked before anything is sent (SPEC §5 File input), uploaded in 5 MB parts by the
 * upload machine, then validated by the server's job; an interrupted upload resumes, a refused file
 * says why with its line. Used for a system's structure and for a potential's topology.
 */
export function FileUpload({
  kind,
  target,
  stored,
  dropLabel,
  badge,
  readOnly = false,
  initialFile,
  invalidHint,
}: FileUploadProps) {
  const { t } = useTranslation("molecularSystems");
  const { snapshot, send, machine } = useUpload(target, initialFile);
  const [refused, setRefused] = useState<string | null>(null);
  const refusal = useFileRefusal(kind);
  const { status, problem } = stored;

  const locked = readOnly || uploaderLocked(machine, status);

  function choose(file: File | null | undefined) {
    if (!file || locked) return;
    const reason = refusal(file);
    setRefused(reason);
    if (reason) return;
    send({ type: "START", file, resumeUploadId: resumableUploadId(stored, file) });
  }

  const percent = shownProgress(machine, snapshot.context);
  const uploadingLabel = badge("uploading", percent) ?? "";
  // Once the parts are complete the server validates; until its answer arrives, say so already.
  const shownStatus = machine === "completed" && status === "uploading" ? "pending_validation" : status;
  const interrupted = machine === "idle" && status === "uploading" && Boolean(stored.upload_id);
  const chosen = snapshot.context.file && machine !== "idle" ? snapshot.context.file : null;

  return (
    <Stack gap="md">
      {readOnly ? null : <DropZone kind={kind} label={dropLabel} locked={locked} onChoose={choose} />}

      {refused ? (
        <Alert color="red" role="alert">
          {refused}
        </Alert>
      ) : null}
      {locked && machine !== "uploading" && !readOnly ? (
        <Text size="sm" c="dimmed">
          {t("file.locked")}
        </Text>
      ) : null}

      {chosen ? (
        <Text size="sm">{t("file.selected", { name: chosen.name, size: formatFileSize(chosen.size) })}</Text>
      ) : stored.file && stored.file_size ? (
        <Text size="sm">{t("file.selected", { name: stored.file, size: formatFileSize(stored.file_size) })}</Text>
      ) : null}

      <UploadProgress
        machine={machine}
        percent={percent}
        label={uploadingLabel}
        interrupted={interrupted ? stored : null}
        onCancel={() => send({ type: "CANCEL" })}
        onRetry={() => send({ type: "RETRY" })}
      />

      {machine !== "uploading" && machine !== "error" && machine !== "canceled" && !interrupted ? (
        <UploadStatus
          label={badge(shownStatus, percent)}
          status={shownStatus}
          problem={problem}
          hint={invalidHint ?? t("file.tryAnother")}
        />
      ) : null}
    </Stack>
  );
}

type DropZoneProps = {
  kind: UploadFileKind;
  label: string;
  locked: boolean;
  onChoose: (file: File | null | undefined) => void;
};

/** The dashed zone a file is dropped on, with its 'choose' button; dimmed while locked. */
function DropZone({ kind, label, locked, onChoose }: DropZoneProps) {
  const { t } = useTranslation("molecularSystems");
  const [dragging, setDragging] = useState(false);
  // The input forgets each choice at once: after a cancel, a failure or a refusal the same file
  // chosen again must still reach onChoose (a file input fires no change for an unchanged value).
  const resetInput = useRef<() => void>(null);
  function onPicked(file: File | null) {
    onChoose(file);
    resetInput.current?.();
  }
  function onDrop(event: DragEvent<HTMLDivElement>) {
    event.preventDefault();
    setDragging(false);
    onChoose(event.dataTransfer.files[0]);
  }
  return (
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
        <Text>{label}</Text>
        <Text size="sm" c="dimmed">
          {t("file.hint", { max: kind.maxMegabytes })}
        </Text>
        <FileButton onChange={onPicked} resetRef={resetInput} accept={kind.extensions.join(",")} disabled={locked}>
          {(props) => (
            <Button {...props} variant="light" disabled={locked}>
              {t("file.choose")}
            </Button>
          )}
        </FileButton>
      </Stack>
    </Box>
  );
}

type UploadProgressProps = {
  machine: UploadMachineState;
  percent: number;
  label: string;
  /** The stored upload when one was interrupted and can resume, else null. */
  interrupted: StoredUpload | null;
  onCancel: () => void;
  onRetry: () => void;
};

/** The transfer's state: progress with cancel, a failure or cancellation with retry, or a resumable upload. */
function UploadProgress({ machine, percent, label, interrupted, onCancel, onRetry }: UploadProgressProps) {
  const { t } = useTranslation("molecularSystems");
  if (machine === "uploading")
    return (
      <Stack gap="xs">
        <Group justify="space-between">
          <StatusBadge status="uploading" label={label} />
          <Button variant="default" onClick={onCancel}>
            {t("file.cancel")}
          </Button>
        </Group>
        <Progress value={percent} aria-label={label} />
      </Stack>
    );
  if (machine === "error")
    return (
      <Stack gap="xs">
        <StatusBadge status="error" label={t("file.uploadFailed")} />
        <Alert color="red" role="alert">
          {t("messages.uploadFailed")}
        </Alert>
        <Group>
          <Button onClick={onRetry}>{t("file.retry")}</Button>
        </Group>
      </Stack>
    );
  if (machine === "canceled")
    return (
      <Group>
        <Text role="status">{t("messages.uploadCanceled")}</Text>
        <Button variant="light" onClick={onRetry}>
          {t("file.retry")}
        </Button>
      </Group>
    );
  if (interrupted)
    return (
      <Alert color="yellow">
        {t("file.resume", { name: interrupted.file ?? "", size: formatFileSize(interrupted.file_size ?? 0) })}
      </Alert>
    );
  return null;
}

/** The problem with its line, unless the engine's message already starts with it. */
export function useProblemText() {
  const { t } = useTranslation("molecularSystems");
  return (problem: StructureProblem) =>
    problem.line && !problem.message.startsWith(`Line ${problem.line}`)
      ? t("file.invalidAt", { line: problem.line, message: problem.message })
      : problem.message;
}

function UploadStatus({
  label,
  status,
  problem,
  hint,
}: {
  label: string | null;
  status: string;
  problem: StructureProblem | null;
  hint: string;
}) {
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
            {hint}
          </Text>
        </Alert>
      ) : null}
    </Stack>
  );
}
