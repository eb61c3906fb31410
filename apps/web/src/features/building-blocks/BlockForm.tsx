import { Alert, Button, Group, Stack, Textarea, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import {
  type BlockSmilesField,
  blockName,
  type CreatableBlockType,
  SMILES_FIELD_RULES,
  smilesIssuesByField,
} from "@polyforge/contracts/building-blocks";
import type { RDKitModule } from "@polyforge/contracts/smiles/rdkit";
import { REQUIRED_FIELD } from "@polyforge/contracts/users";
import { zod4Resolver } from "mantine-form-zod-resolver";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { z } from "zod";
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

const nameResolver = zod4Resolver(z.object({ name: blockName }), { errorPriority: "first" });

/**
 * The form-level SMILES check: 'Required field' for an empty one, else RDKit's first issue under
 * the field's connection rule (none before RDKit is loaded; the server checks them anyway).
 */
function smilesErrors(
  rdkit: RDKitModule | undefined,
  type: CreatableBlockType,
  fields: readonly BlockSmilesField[],
  data: BlockData,
): Record<string, string> {
  const issues = rdkit ? smilesIssuesByField(rdkit, type, data) : {};
  const errors: Record<string, string> = {};
  for (const field of fields) {
    const message = (data[field] ?? "").trim() === "" ? REQUIRED_FIELD : issues[field]?.message;
    if (message) errors[`data.${field}`] = message;
  }
  return errors;
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
  const [editingField, setEditingField] = useState<BlockSmilesField | null>(initialEditingField);
  const [formWarning, setFormWarning] = useState<string | null>(null);
  const fields = Object.keys(SMILES_FIELD_RULES[type]) as BlockSmilesField[];

  const form = useBlockFormValues(type, initialValues, rdkit.data, fields);

  function changeSmiles(field: BlockSmilesField, value: string) {
    // Validated on change: a message from the server under this field goes with the edit.
    form.setFieldValue(`data.${field}`, value);
    setFormWarning(null);
  }

  // What stops a save, in this order: a SMILES still being edited, errors, RDKit still loading
  // (without the renderer the rules cannot run here; the server checks them anyway).
  const submit = useBlockSubmit(form, fields, onSubmit, setFormWarning, (hasErrors) =>
    editingField
      ? t("form.finishEditing")
      : hasErrors
        ? t("form.fixErrors")
        : rdkit.isPending
          ? t("drawing.loading")
          : null,
  );

  return (
    <form
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <Stack gap="md">
        <TextInput label={t("form.name")} required {...form.getInputProps("name")} />
        <Textarea label={t("form.description")} autosize minRows={2} {...form.getInputProps("description")} />
        {rdkit.isError ? <Alert color="red">{t("drawing.loadFailed")}</Alert> : null}
        {fields.map((field) => (
          <SmilesField
            key={field}
            label={t(`fields.${field}`)}
            hint={t(`hints.${type}.${field}`)}
            value={form.values.data[field] ?? ""}
            error={(form.errors[`data.${field}`] as string | undefined) ?? null}
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

/** The form's values and checks: the name's rule, and each SMILES field's (with RDKit once loaded). */
function useBlockFormValues(
  type: CreatableBlockType,
  initialValues: BlockFormValues,
  rdkit: RDKitModule | undefined,
  fields: BlockSmilesField[],
) {
  const form = useForm<BlockFormValues>({
    mode: "controlled",
    initialValues,
    // The first message of a field, shown once the field is changed (or on save) and gone once right.
    validate: (values) => ({
      ...nameResolver({ name: values.name }),
      ...smilesErrors(rdkit, type, fields, values.data),
    }),
    validateInputOnChange: true,
  });

  // A SMILES already there (the detail page) is checked as soon as RDKit is ready, before any edit.
  // biome-ignore lint/correctness/useExhaustiveDependencies: re-checked when RDKit arrives.
  useEffect(() => {
    for (const field of fields) if ((form.values.data[field] ?? "").trim()) form.validateField(`data.${field}`);
  }, [rdkit]);
  return form;
}

/**
 * The save: validates, says why not (`blocker`, given whether the form has errors) or sends the
 * values; a SMILES error from the server is shown under its field.
 */
function useBlockSubmit(
  form: ReturnType<typeof useBlockFormValues>,
  fields: BlockSmilesField[],
  onSubmit: BlockFormProps["onSubmit"],
  setFormWarning: (warning: string | null) => void,
  blocker: (hasErrors: boolean) => string | null,
): () => Promise<void> {
  // A second submit while the first is on its way (a double click) sends nothing: the button's
  // loading state comes a render later than the second click.
  const inFlight = useRef(false);
  return async () => {
    if (inFlight.current) return;
    const { hasErrors } = form.validate();
    const warning = blocker(hasErrors);
    setFormWarning(warning);
    if (warning) return;
    inFlight.current = true;
    const { name, description, data } = form.getValues();
    try {
      await onSubmit({ name: blockName.parse(name), description: description.trim(), data });
    } catch (error) {
      if (!(error instanceof ProductError)) return;
      const { field, message } = error.args;
      if (typeof field === "string" && fields.includes(field as BlockSmilesField)) {
        form.setFieldError(`data.${field}`, typeof message === "string" ? message : error.message);
      }
    } finally {
      inFlight.current = false;
    }
  };
}
