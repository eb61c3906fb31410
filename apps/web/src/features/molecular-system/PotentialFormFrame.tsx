import { Button, Group, Stack, Textarea, TextInput, Title } from "@mantine/core";
import type { UseFormReturnType } from "@mantine/form";
import { DESCRIPTION_MAX } from "@polyforge/contracts/molecular-systems";
import type { FormEventHandler, ReactNode } from "react";
import { useTranslation } from "react-i18next";

interface PotentialBasics {
  name: string;
  description: string;
}

interface PotentialFormFrameProps<Values extends PotentialBasics> {
  title: string;
  submitLabel: string;
  /** A form holding at least the potential's name and description. */
  form: UseFormReturnType<Values>;
  submitting: boolean;
  onSubmit: FormEventHandler<HTMLFormElement>;
  onDiscard: () => void;
  /** The fields of the kind of potential, between the description and the buttons. */
  children: ReactNode;
}

/** What both potential forms share (SPEC §5): the title, name (required) and description, then
 * Discard and the submit button. */
export function PotentialFormFrame<Values extends PotentialBasics>({
  title,
  submitLabel,
  form,
  submitting,
  onSubmit,
  onDiscard,
  children,
}: PotentialFormFrameProps<Values>) {
  const { t } = useTranslation("molecularSystems");
  return (
    <form noValidate aria-label={title} onSubmit={onSubmit}>
      <Stack gap="md" maw={640}>
        <Title order={4}>{title}</Title>
        <TextInput label={t("potentials.name")} withAsterisk {...form.getInputProps("name")} />
        <Textarea
          label={t("potentials.description")}
          autosize
          minRows={2}
          maxLength={DESCRIPTION_MAX}
          {...form.getInputProps("description")}
        />
        {children}
        <Group justify="flex-end">
          <Button variant="default" onClick={onDiscard} disabled={submitting}>
            {t("potentials.discard")}
          </Button>
          <Button type="submit" loading={submitting}>
            {submitLabel}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
