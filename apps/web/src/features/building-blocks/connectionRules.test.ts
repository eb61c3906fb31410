import {
  type BlockSmilesField,
  type CreatableBlockType,
  SMILES_FIELD_RULES,
} from "@polyforge/contracts/building-blocks";
import { CONNECTION_RULES } from "@polyforge/contracts/smiles/connection-rules";
import { loadRDKit } from "@polyforge/contracts/smiles/rdkit";
import { type RuleName, SMILES_CONNECTION_CASES } from "@polyforge/contracts/testing/smiles-connection-cases";
import { REQUIRED_FIELD } from "@polyforge/contracts/users";
import { fireEvent, screen, waitFor } from "@testing-library/react";
import i18next from "i18next";
import { createElement } from "react";
import { renderWithProviders } from "../../test/renderWithProviders";
import { BlockForm } from "./BlockForm";

// The contracts' table of SMILES cases, typed into the real block form: each field must show the
// same message the server answers with (or none for an accepted SMILES).
beforeAll(async () => {
  await loadRDKit();
});

/** The first form field (block type and field name) that applies each connection rule. */
function fieldOfRule(rule: RuleName): { type: CreatableBlockType; field: BlockSmilesField } {
  for (const type of Object.keys(SMILES_FIELD_RULES) as CreatableBlockType[]) {
    for (const [field, fieldRule] of Object.entries(SMILES_FIELD_RULES[type])) {
      if (fieldRule === CONNECTION_RULES[rule]) return { type, field: field as BlockSmilesField };
    }
  }
  throw new Error(`no form field applies the rule ${rule}`);
}

describe("the block form applies the shared SMILES connection rules", () => {
  it.each(SMILES_CONNECTION_CASES)("$rule: '$smiles'", async ({ rule, smiles, expected }) => {
    const { type, field } = fieldOfRule(rule);
    renderWithProviders(
      createElement(BlockForm, {
        type,
        initialValues: { name: "", description: "", data: {} },
        initialEditingField: field,
        submitLabel: "Create block",
        submitting: false,
        onSubmit: async () => undefined,
      }),
    );
    const input = screen.getByLabelText(i18next.t(`fields.${field}`, { ns: "buildingBlocks" }));
    fireEvent.change(input, { target: { value: `${smiles}x` } });
    fireEvent.change(input, { target: { value: smiles } });

    // A blank field is the form's own 'required' case; everything else is the shared rule's message.
    const message = smiles.trim() === "" ? REQUIRED_FIELD : expected?.message;
    if (message) {
      expect(await screen.findByText(message)).toBeInTheDocument();
    } else {
      // An accepted SMILES is drawn, and no rule's message is shown.
      await screen.findByRole("img", { name: `2D structure of ${smiles}` });
      await waitFor(() => expect(screen.queryByText(/This SMILES|Connection point|Invalid SMILES/)).toBeNull());
    }
  });
});
