import { Button, Group, Modal, Stack, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { INVALID_SMILES_MESSAGE, SMILES_MAX_LENGTH, smilesBody } from "@polyforge/contracts/molecular-systems";
import { dummyAtoms, isParsableSmiles } from "@polyforge/contracts/smiles/connection-rules";
import type { RDKitModule } from "@polyforge/contracts/smiles/rdkit";
import { zod4Resolver } from "mantine-form-zod-resolver";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { z } from "zod";
import { useRDKit } from "../../lib/chemistry/useRDKit";

export interface SmilesDialogProps {
  opened: boolean;
  value: string;
  onChange: (value: string) => void;
  onClose: () => void;
  /** Called with a SMILES RDKit reads, without connection points; the dialog closes once it is drawn. */
  onDraw: (smiles: string) => Promise<void>;
}

/** True when a SMILES has connection points (`*`, `[*:1]`; Ketcher's R1, R2): a building block's, not
 * a whole molecule's, and the server refuses them. */
export const hasConnectionPoints = (smiles: string): boolean => dummyAtoms(smiles).length > 0;

/** The SMILES body's rule ('Required field'), then a structure RDKit reads ('Invalid SMILES format'),
 * then a whole molecule, without a building block's connection points. */
const drawableSmiles = (rdkit: RDKitModule | undefined, connectionPointsMessage: string) =>
  z.object({
    smiles: smilesBody.shape.smiles
      .refine((smiles) => rdkit !== undefined && isParsableSmiles(rdkit, smiles), INVALID_SMILES_MESSAGE)
      .refine((smiles) => !hasConnectionPoints(smiles), connectionPointsMessage),
  });

/** SPEC §5 SMILES entry: required and a valid structure ('Invalid SMILES format'), then drawn. */
export function SmilesDialog({ opened, value, onChange, onClose, onDraw }: SmilesDialogProps) {
  const { t } = useTranslation("molecularSystems");
  return (
    <Modal opened={opened} onClose={onClose} title={t("structure.smilesDialogTitle")} size="lg">
      {/* The modal's content mounts on opening, so the form starts from the parent's draft. */}
      <SmilesForm value={value} onChange={onChange} onDraw={onDraw} />
    </Modal>
  );
}

function SmilesForm({ value, onChange, onDraw }: Pick<SmilesDialogProps, "value" | "onChange" | "onDraw">) {
  const { t } = useTranslation("molecularSystems");
  const rdkit = useRDKit();
  const [drawing, setDrawing] = useState(false);
  const form = useForm({
    mode: "controlled",
    initialValues: { smiles: value },
    // Checked on Draw; a message goes as soon as the SMILES is changed.
    validate: (values) =>
      zod4Resolver(drawableSmiles(rdkit.data, t("messages.connectionPoints")), { errorPriority: "first" })(values),
    onValuesChange: (values) => onChange(values.smiles),
  });

  const draw = form.onSubmit(async (values) => {
    setDrawing(true);
    try {
      await onDraw(values.smiles.trim());
    } finally {
      setDrawing(false);
    }
  });

  return (
    <form noValidate onSubmit={draw}>
      <Stack>
        <TextInput
          label={t("structure.smilesLabel")}
          placeholder={t("structure.smilesPlaceholder")}
          maxLength={SMILES_MAX_LENGTH}
          {...form.getInputProps("smiles")}
          data-autofocus
          styles={{ input: { fontFamily: "monospace" } }}
        />
        <Group justify="flex-end">
          <Button type="submit" loading={drawing || rdkit.isPending} disabled={rdkit.isError}>
            {t("structure.drawStructure")}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
