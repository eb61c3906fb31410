import { Button, Group, Select, SimpleGrid, Stack, Textarea, TextInput, Title } from "@mantine/core";
import { useForm } from "@mantine/form";
import { DESCRIPTION_MAX } from "@polyforge/contracts/molecular-systems";
import {
  type GeneratePotentialFormInput,
  generatePotentialForm,
  POTENTIAL_DEFAULTS,
  potentialForceFieldsFor,
} from "@polyforge/contracts/potentials";
import { zod4Resolver } from "mantine-form-zod-resolver";
import { useTranslation } from "react-i18next";
import { useIdentity } from "../../lib/auth/useIdentity";

type GenerateValues = {
  name: string;
  description: string;
  force_field: string;
  charge: string;
  minimization_steps: string;
};

export interface GeneratePotentialFormProps {
  submitting: boolean;
  onSubmit: (values: GeneratePotentialFormInput) => void;
  onDiscard: () => void;
}

/**
 * SPEC §5 Potential (generate): name required; force field GAFF or GAFF2 as the organization allows
 * (the cosmetics company GAFF2 only); net charge and minimisation steps whole numbers, trimmed.
 * Defaults GAFF2, 0, 5 (SPEC §9).
 */
export function GeneratePotentialForm({ submitting, onSubmit, onDiscard }: GeneratePotentialFormProps) {
  const { t } = useTranslation("molecularSystems");
  const { organization } = useIdentity();
  const forceFields = potentialForceFieldsFor(organization);
  const form = useForm<GenerateValues>({
    mode: "controlled",
    initialValues: { name: "", description: "", ...POTENTIAL_DEFAULTS },
    validate: zod4Resolver(generatePotentialForm),
  });
  return (
    <form
      noValidate
      aria-label={t("potentials.generateTitle")}
      onSubmit={form.onSubmit((values) => onSubmit(generatePotentialForm.parse(values)))}
    >
      <Stack gap="md" maw={640}>
        <Title order={4}>{t("potentials.generateTitle")}</Title>
        <TextInput label={t("potentials.name")} withAsterisk {...form.getInputProps("name")} />
        <Textarea
          label={t("potentials.description")}
          autosize
          minRows={2}
          maxLength={DESCRIPTION_MAX}
          {...form.getInputProps("description")}
        />
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          <Select
            label={t("potentials.forceField")}
            description={t("potentials.forceFieldHint")}
            withAsterisk
            allowDeselect={false}
            data={forceFields.map((value) => ({ value, label: value }))}
            {...form.getInputProps("force_field")}
          />
          <TextInput
            label={t("potentials.charge")}
            description={t("potentials.chargeHint")}
            withAsterisk
            inputMode="numeric"
            {...form.getInputProps("charge")}
          />
          <TextInput
            label={t("potentials.minimizationSteps")}
            description={t("potentials.minimizationStepsHint")}
            withAsterisk
            inputMode="numeric"
            {...form.getInputProps("minimization_steps")}
          />
        </SimpleGrid>
        <Group justify="flex-end">
          <Button variant="default" onClick={onDiscard} disabled={submitting}>
            {t("potentials.discard")}
          </Button>
          <Button type="submit" loading={submitting}>
            {t("potentials.generate")}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
