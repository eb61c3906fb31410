import { Alert, Button, Group, Stack, Textarea, TextInput } from "@mantine/core";
import {
  type BlockSmilesField,
  blockName,
  type CreatableBlockType,
  SMILES_FIELD_RULES,
  smilesIssuesByField,
} from "@polyforge/contracts/building-blocks";
import { REQUIRED_FIELD } from "@polyforge/contracts/users";
import { useMemo, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { ProductError } from "../../lib/api/productError";
import { useRDKit } from "../../lib/chemistry/useRDKit";
import { SmilesField } from "./SmilesField";

export type BlockData = Partial<Record<BlockSmilesField, string>>;

export interface BlockFormValues {
  name: string;
  description: string;
  data: BlockData;
}

export interface BlockFormProps {
  type: CreatableBlockType;
  initialValues: BlockFormValues;
  /** The SMILES field open for editing when the form appears, if any. */
  initialEditingField?: BlockSmilesField | null;
  submitLabel: string;
  submitting: boolean;
  /** Saves the values; a rejected SMILES error from the server is shown under its field. */
  onSubmit: (values: BlockFormValues) => Promise<unknown>;
}

/** The linear or dendrimer block form of SPEC §2/§5, for creation and for the detail page. */
export function BlockForm({
  type,
  initialValues,
  initialEditingField = null,
  submitLabel,
  submitting,
  onSubmit,
}: BlockFormProps) {
  const { t } = useTranslation("buildingBlocks");
  const rdkit = useRDKit();
  const [name, setName] = useState(initialValues.name);
  const [description, setDescription] = useState(initialValues.description);
  const [data, setData] = useState<BlockData>(initialValues.data);
  const [editingField, setEditingField] = useState<BlockSmilesField | null>(initialEditingField);
  const [touched, setTouched] = useState<ReadonlySet<string>>(new Set());
  const [serverErrors, setServerErrors] = useState<Partial<Record<BlockSmilesField, string>>>({});
  const [formWarning, setFormWarning] = useState<string | null>(null);

  const fields = Object.keys(SMILES_FIELD_RULES[type]) as BlockSmilesField[];
  const issues = useMemo(
    () => (rdkit.data ? smilesIssuesByField(rdkit.data, type, data) : {}),
    [rdkit.data, type, data],
  );
  const nameCheck = blockName.safeParse(name);
  const nameError = touched.has("name") && !nameCheck.success ? (nameCheck.error.issues[0]?.message ?? null) : null;

  function smilesError(field: BlockSmilesField): string | null {
    const value = data[field] ?? "";
    if (value.trim() === "") return touched.has(field) ? REQUIRED_FIELD : null;
    return serverErrors[field] ?? issues[field]?.message ?? null;
  }

  function changeSmiles(field: BlockSmilesField, value: string) {
    setData((current) => ({ ...current, [field]: value }));
    setTouched((current) => new Set(current).add(field));
    setServerErrors(({ [field]: _, ...rest }) => rest);
    setFormWarning(null);
  }

  // A second submit while the first is on its way (a double click) sends nothing: the button's
  // loading state comes a render later than the second click.
  const inFlight = useRef(false);

  async function submit() {
    if (inFlight.current) return;
    setTouched(new Set(["name", ...fields]));
    if (editingField) return setFormWarning(t("form.finishEditing"));
    const smilesInvalid = fields.some((field) => !(data[field] ?? "").trim() || issues[field]);
    if (!nameCheck.success || smilesInvalid) return setFormWarning(t("form.fixErrors"));
    // Without the renderer the rules cannot run here; the server checks them anyway.
    if (rdkit.isPending) return setFormWarning(t("drawing.loading"));
    setFormWarning(null);
    inFlight.current = true;
    try {
      await onSubmit({ name: nameCheck.data, description: description.trim(), data });
    } catch (error) {
      if (!(error instanceof ProductError)) return;
      const { field, message } = error.args;
      if (typeof field === "string" && fields.includes(field as BlockSmilesField)) {
        setServerErrors({ [field]: typeof message === "string" ? message : error.message });
      }
    } finally {
      inFlight.current = false;
    }
  }

  return (
    <form
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <Stack gap="md">
        <TextInput
          label={t("form.name")}
          required
          value={name}
          error={nameError}
          onChange={(event) => {
            setName(event.currentTarget.value);
            setTouched((current) => new Set(current).add("name"));
          }}
        />
        <Textarea
          label={t("form.description")}
          autosize
          minRows={2}
          value={description}
          onChange={(event) => setDescription(event.currentTarget.value)}
        />
        {rdkit.isError ? <Alert color="red">{t("drawing.loadFailed")}</Alert> : null}
        {fields.map((field) => (
          <SmilesField
            key={field}
            label={t(`fields.${field}`)}
            hint={t(`hints.${type}.${field}`)}
            value={data[field] ?? ""}
            error={smilesError(field)}
            rdkit={rdkit.data}
            editing={editingField === field}
            canEdit={editingField === null}
            onChange={(value) => changeSmiles(field, value)}
            onEdit={() => {
              setEditingField(field);
              setFormWarning(null);
            }}
            onDone={() => setEditingField(null)}
          />
        ))}
        {formWarning ? (
          <Alert color="yellow" role="alert">
            {formWarning}
          </Alert>
        ) : null}
        <Group justify="flex-end">
          <Button type="submit" loading={submitting}>
            {submitLabel}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
