import { DEFAULT_HEAD_REPEATING_UNIT, DEFAULT_TAIL_REPEATING_UNIT } from "@polyforge/contracts/building-blocks";
import { loadRDKit } from "@polyforge/contracts/smiles/rdkit";
import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { renderWithProviders } from "../../test/renderWithProviders";
import { BlockForm, type BlockFormValues } from "./BlockForm";

// The real RDKit, loaded the Node way first; the form's lazy loader then shares this instance.
beforeAll(async () => {
  await loadRDKit();
});

function renderLinearForm(onSubmit: (values: BlockFormValues) => Promise<unknown>) {
  return renderWithProviders(
    <BlockForm
      type="linear"
      initialValues={{
        name: "",
        description: "",
        data: {
          repeating_unit: "",
          head_repeating_unit: DEFAULT_HEAD_REPEATING_UNIT,
          tail_repeating_unit: DEFAULT_TAIL_REPEATING_UNIT,
        },
      }}
      initialEditingField="repeating_unit"
      submitLabel="Create block"
      submitting={false}
      onSubmit={onSubmit}
    />,
  );
}

describe("BlockForm", () => {
  it("explains a broken SMILES while typing and draws a valid one with its connection points", async () => {
    const user = userEvent.setup();
    renderLinearForm(async () => undefined);
    const repeatingUnit = screen.getByLabelText("Repeating unit");

    await user.type(repeatingUnit, "[[*:1]CC");
    expect(
      await screen.findByText("This SMILES must contain exactly one [*:1] and exactly one [*:2] connection"),
    ).toBeInTheDocument();

    await user.clear(repeatingUnit);
    await user.type(repeatingUnit, "[[*:1]CC[[*:3]");
    expect(await screen.findByText("This SMILES can only contain [*:1] and [*:2] connections")).toBeInTheDocument();

    await user.clear(repeatingUnit);
    await user.type(repeatingUnit, "[[*:1]CC[[*:2]");
    await waitFor(() => expect(screen.queryByText(/This SMILES|Connection point/)).not.toBeInTheDocument());
    const drawing = screen.getByRole("img", { name: "2D structure of [*:1]CC[*:2]" });
    const svg = drawing.querySelector("svg");
    expect(svg).not.toBeNull();
    // Both markers are drawn as their labels, highlighted.
    expect(svg?.querySelector(".atom-0")).not.toBeNull();
    expect(svg?.querySelector(".atom-3")).not.toBeNull();
    expect(svg?.querySelector("script")).toBeNull();
  });

  it("lets only one SMILES field be edited at a time and asks to finish before saving", async () => {
    const user = userEvent.setup();
    const submitted: BlockFormValues[] = [];
    renderLinearForm(async (values) => submitted.push(values));

    await user.type(screen.getByRole("textbox", { name: /^Name/ }), "Propylene");
    await user.type(screen.getByLabelText("Repeating unit"), "[[*:1]CC(C)[[*:2]");
    expect(screen.getByRole("button", { name: "Edit Head repeating unit" })).toBeDisabled();
    expect(screen.getByLabelText("Head repeating unit")).toHaveAttribute("readonly");

    await user.click(screen.getByRole("button", { name: "Create block" }));
    expect(await screen.findByText("Please finish editing the SMILES before saving")).toBeInTheDocument();
    expect(submitted).toEqual([]);

    await user.click(screen.getByRole("button", { name: "Done editing Repeating unit" }));
    expect(screen.getByRole("button", { name: "Edit Head repeating unit" })).toBeEnabled();
    await user.click(screen.getByRole("button", { name: "Create block" }));
    await waitFor(() => expect(submitted).toHaveLength(1));
    expect(submitted[0]).toEqual({
      name: "Propylene",
      description: "",
      data: { repeating_unit: "[*:1]CC(C)[*:2]", head_repeating_unit: "[*:2][H]", tail_repeating_unit: "[*:1][H]" },
    });
  });

  it("does not save with an empty name or a broken cap", async () => {
    const user = userEvent.setup();
    const submitted: BlockFormValues[] = [];
    renderLinearForm(async (values) => submitted.push(values));
    await user.type(screen.getByLabelText("Repeating unit"), "[[*:1]CC[[*:2]");
    await user.click(screen.getByRole("button", { name: "Done editing Repeating unit" }));
    await user.click(screen.getByRole("button", { name: "Edit Tail repeating unit" }));
    await user.clear(screen.getByLabelText("Tail repeating unit"));
    await user.type(screen.getByLabelText("Tail repeating unit"), "[[*:2]C");
    await user.click(screen.getByRole("button", { name: "Done editing Tail repeating unit" }));

    await user.click(screen.getByRole("button", { name: "Create block" }));
    expect(await screen.findByText("Required field")).toBeInTheDocument();
    expect(screen.getByText("This SMILES can only contain [*:1] connections")).toBeInTheDocument();
    expect(screen.getByText("Please correct the fields marked in red before saving")).toBeInTheDocument();
    expect(submitted).toEqual([]);
  });
});
