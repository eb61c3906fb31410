import { Button, Group, Stack, TextInput } from "@mantine/core";
import type { RDKitModule } from "@polyforge/contracts/smiles/rdkit";
import { useTranslation } from "react-i18next";
import { StructureDrawing } from "./StructureDrawing";

export interface SmilesFieldProps {
  label: string;
  hint: string;
  value: string;
  /** The message to show under the field, if any. */
  error: string | null;
  rdkit: RDKitModule | undefined;
  editing: boolean;
  /** False while another SMILES field of the form is being edited (one at a time, SPEC §2). */
  canEdit: boolean;
  onChange: (value: string) => void;
  onEdit: () => void;
  onDone: () => void;
}

/** One SMILES of a block: the text (editable after 'Edit'), its rule, its message and its drawing. */
export function SmilesField(props: SmilesFieldProps) {
  const { t } = useTranslation("buildingBlocks");
  const { label, hint, value, error, rdkit, editing, canEdit, onChange, onEdit, onDone } = props;
  return (
    <Group align="flex-start" wrap="nowrap" gap="md">
      <Stack gap={6} style={{ flex: 1, minWidth: 0 }}>
        <TextInput
          label={label}
          description={hint}
          value={value}
          readOnly={!editing}
          error={error}
          styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
          spellCheck={false}
          autoComplete="off"
          onChange={(event) => onChange(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (editing && event.key === "Enter") {
              event.preventDefault();
              onDone();
            }
          }}
        />
        <Group gap="xs">
          {editing ? (
            <Button size="xs" onClick={onDone} aria-label={t("form.doneEditing", { field: label })}>
              {t("form.done")}
            </Button>
          ) : (
            <Button
              size="xs"
              variant="light"
              disabled={!canEdit}
              onClick={onEdit}
              aria-label={t("form.editField", { field: label })}
            >
              {t("form.edit")}
            </Button>
          )}
        </Group>
      </Stack>
      <StructureDrawing rdkit={rdkit} smiles={value} />
    </Group>
  );
}
