import { Button, Group, Modal, Stack, TextInput } from "@mantine/core";
import { SMILES_MAX_LENGTH } from "@polyforge/contracts/molecular-systems";
import { isParsableSmiles } from "@polyforge/contracts/smiles/connection-rules";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { useRDKit } from "../../lib/chemistry/useRDKit";

export interface SmilesDialogProps {
  opened: boolean;
  value: string;
  onChange: (value: string) => void;
  onClose: () => void;
  /** Called with a SMILES RDKit reads; the dialog closes once it is drawn. */
  onDraw: (smiles: string) => Promise<void>;
}

/** SPEC §5 SMILES entry: required and a valid structure ('Invalid SMILES format'), then drawn. */
export function SmilesDialog({ opened, value, onChange, onClose, onDraw }: SmilesDialogProps) {
  const { t } = useTranslation("molecularSystems");
  const rdkit = useRDKit();
  const [error, setError] = useState<string | null>(null);
  const [drawing, setDrawing] = useState(false);

  async function draw() {
    const smiles = value.trim();
    if (!smiles) {
      setError(t("messages.required"));
      return;
    }
    if (!rdkit.data || !isParsableSmiles(rdkit.data, smiles)) {
      setError(t("messages.invalidSmiles"));
      return;
    }
    setError(null);
    setDrawing(true);
    try {
      await onDraw(smiles);
    } finally {
      setDrawing(false);
    }
  }

  return (
    <Modal opened={opened} onClose={onClose} title={t("structure.smilesDialogTitle")} size="lg">
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void draw();
        }}
      >
        <Stack>
          <TextInput
            label={t("structure.smilesLabel")}
            placeholder={t("structure.smilesPlaceholder")}
            value={value}
            maxLength={SMILES_MAX_LENGTH}
            onChange={(event) => {
              onChange(event.currentTarget.value);
              setError(null);
            }}
            error={error}
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
    </Modal>
  );
}
