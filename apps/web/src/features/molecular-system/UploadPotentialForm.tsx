import { Button, FileButton, Group, Input, Text } from "@mantine/core";
import { useForm } from "@mantine/form";
import { uploadPotentialForm } from "@polyforge/contracts/potentials";
import { TOPOLOGY_FILE } from "@polyforge/contracts/uploads";
import { IconFileUpload } from "@tabler/icons-react";
import { zod4Resolver } from "mantine-form-zod-resolver";
import { useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { formatFileSize } from "../../lib/formatting/fileSize";
import { useFileRefusal } from "./fileRefusal";
import { PotentialFormFrame } from "./PotentialFormFrame";

export interface UploadPotentialValues {
  name: string;
  description: string;
  file: File;
}

export interface UploadPotentialFormProps {
  submitting: boolean;
  onSubmit: (values: UploadPotentialValues) => void;
  onDiscard: () => void;
}

/**
 * SPEC §5 Potential (upload): name required, a .top file required (up to 4000 MB, SPEC §9). The file
 * is checked here; once the potential is created it is sent by the same resumable upload as a
 * structure file.
 */
export function UploadPotentialForm({ submitting, onSubmit, onDiscard }: UploadPotentialFormProps) {
  const { t } = useTranslation("molecularSystems");
  const form = useForm<{ name: string; description: string }>({
    mode: "controlled",
    initialValues: { name: "", description: "" },
    validate: zod4Resolver(uploadPotentialForm),
  });
  const [file, setFile] = useState<File | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const refusal = useFileRefusal(TOPOLOGY_FILE);

  // Forget each choice in the input itself, so a refused file chosen again is checked again.
  const resetInput = useRef<() => void>(null);

  function choose(chosen: File | null) {
    resetInput.current?.();
    if (!chosen) return;
    const reason = refusal(chosen);
    if (reason) {
      setFile(null);
      setFileError(reason);
      return;
    }
    setFile(chosen);
    setFileError(null);
  }

  return (
    <PotentialFormFrame
      title={t("potentials.uploadTitle")}
      submitLabel={t("potentials.upload")}
      form={form}
      submitting={submitting}
      onSubmit={(event) => {
        // The file's own check is shown together with the fields'.
        if (!file && !fileError) setFileError(t("messages.required"));
        form.onSubmit((values) => {
          if (file) onSubmit({ ...uploadPotentialForm.parse(values), file });
        })(event);
      }}
      onDiscard={onDiscard}
    >
      <Input.Wrapper
        label={t("potentials.topologyFile")}
        description={t("potentials.topologyHint", { max: TOPOLOGY_FILE.maxMegabytes })}
        withAsterisk
        error={fileError}
      >
        <Group mt={4}>
          <FileButton onChange={choose} resetRef={resetInput} accept={TOPOLOGY_FILE.extensions.join(",")}>
            {(props) => (
              <Button {...props} variant="light" leftSection={<IconFileUpload size={16} />}>
                {t("potentials.chooseTopology")}
              </Button>
            )}
          </FileButton>
          {file ? (
            <Text size="sm">{t("file.selected", { name: file.name, size: formatFileSize(file.size) })}</Text>
          ) : null}
        </Group>
      </Input.Wrapper>
    </PotentialFormFrame>
  );
}
