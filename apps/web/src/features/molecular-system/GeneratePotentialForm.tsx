import { Select, SimpleGrid, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import {
  type GeneratePotentialFormInput,
  generatePotentialForm,
  POTENTIAL_DEFAULTS,
  potentialForceFieldsFor,
} from "@polyforge/contracts/potentials";
import { zod4Resolver } from "mantine-form-zod-resolver";
import { useTranslation } from "react-i18next";
import { useIdentity } from "../../lib/auth/useIdentity";
import { PotentialFormFrame } from "./PotentialFormFrame";

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
    <PotentialFormFrame
      title={t("potentials.generateTitle")}
      submitLabel={t("potentials.generate")}
      form={form}
      submitting={submitting}
      onSubmit={form.onSubmit((values) => onSubmit(generatePotentialForm.parse(values)))}
      onDiscard={onDiscard}
    >
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
    </PotentialFormFrame>
  );
}
