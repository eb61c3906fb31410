import { Button, FileButton, Group, Input, Stack, Text, Textarea, TextInput, Title } from "@mantine/core";
import { useForm } from "@mantine/form";
import { DESCRIPTION_MAX } from "@polyforge/contracts/molecular-systems";
import { uploadPotentialForm } from "@polyforge/contracts/potentials";
import { fileProblem, TOPOLOGY_FILE, unsupportedFileTypeMessage } from "@polyforge/contracts/uploads";
import { IconFileUpload } from "@tabler/icons-react";
import { zod4Resolver } from "mantine-form-zod-resolver";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { formatFileSize } from "../../lib/formatting/fileSize";

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

  function choose(chosen: File | null) {
    if (!chosen) return;
    const reason = fileProblem(TOPOLOGY_FILE, chosen.name, chosen.size);
    if (reason) {
      setFile(null);
      setFileError(
        reason === unsupportedFileTypeMessage(TOPOLOGY_FILE.extensions)
          ? t("messages.unsupportedFileType", { list: TOPOLOGY_FILE.extensions.join(", ") })
          : t("messages.fileTooLarge", { max: TOPOLOGY_FILE.maxMegabytes }),
      );
      return;
    }
    setFile(chosen);
    setFileError(null);
  }

  return (
    <form
      noValidate
      aria-label={t("potentials.uploadTitle")}
      onSubmit={(event) => {
        // The file's own check is shown together with the fields'.
        if (!file && !fileError) setFileError(t("messages.required"));
        form.onSubmit((values) => {
          if (file) onSubmit({ ...uploadPotentialForm.parse(values), file });
        })(event);
      }}
    >
      <Stack gap="md" maw={640}>
        <Title order={4}>{t("potentials.uploadTitle")}</Title>
        <TextInput label={t("potentials.name")} withAsterisk {...form.getInputProps("name")} />
        <Textarea
          label={t("potentials.description")}
          autosize
          minRows={2}
          maxLength={DESCRIPTION_MAX}
          {...form.getInputProps("description")}
        />
        <Input.Wrapper
          label={t("potentials.topologyFile")}
          description={t("potentials.topologyHint", { max: TOPOLOGY_FILE.maxMegabytes })}
          withAsterisk
          error={fileError}
        >
          <Group mt={4}>
            <FileButton onChange={choose} accept={TOPOLOGY_FILE.extensions.join(",")}>
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
        <Group justify="flex-end">
          <Button variant="default" onClick={onDiscard} disabled={submitting}>
            {t("potentials.discard")}
          </Button>
          <Button type="submit" loading={submitting}>
            {t("potentials.upload")}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
