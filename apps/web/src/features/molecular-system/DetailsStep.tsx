import { Button, Group, Radio, Stack, Textarea, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import {
  DESCRIPTION_MAX,
  type MolecularSystemDetailsForm,
  molecularSystemDetailsForm,
} from "@polyforge/contracts/molecular-systems";
import { zod4Resolver } from "mantine-form-zod-resolver";
import { useTranslation } from "react-i18next";
import { useNewSystemFiling } from "./newSystemFiling";

export interface DetailsStepProps {
  submitting: boolean;
  onSubmit: (values: MolecularSystemDetailsForm) => void;
}

/** Step 1 (SPEC §5 Molecular system details): name required, description, origin file or structure. */
export function DetailsStep({ submitting, onSubmit }: DetailsStepProps) {
  const { t } = useTranslation("molecularSystems");
  const filing = useNewSystemFiling();
  const form = useForm<{ name: string; description: string; origin: string; project_id: string | null }>({
    mode: "controlled",
    initialValues: { name: "", description: "", origin: "", project_id: null },
    validate: zod4Resolver(molecularSystemDetailsForm),
  });
  return (
    <form
      noValidate
      onSubmit={form.onSubmit((values) => {
        const details = molecularSystemDetailsForm.parse(values);
        filing?.choose(values.project_id, details.name);
        onSubmit(details);
      })}
      aria-label={t("steps.details")}
    >
      <Stack gap="md" maw={560}>
        <TextInput label={t("details.name")} withAsterisk {...form.getInputProps("name")} />
        <Textarea
          label={t("details.description")}
          autosize
          minRows={2}
          maxLength={DESCRIPTION_MAX}
          {...form.getInputProps("description")}
        />
        <Radio.Group label={t("details.origin")} withAsterisk {...form.getInputProps("origin")}>
          <Group mt="xs">
            <Radio value="upload" label={t("details.fromFile")} />
            <Radio value="smiles" label={t("details.fromStructure")} />
          </Group>
        </Radio.Group>
        {filing?.field({
          value: form.values.project_id,
          onChange: (value) => form.setFieldValue("project_id", value),
        })}
        <Group justify="flex-end">
          <Button type="submit" loading={submitting}>
            {t("details.next")}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
