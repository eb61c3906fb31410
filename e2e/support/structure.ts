import { expect, type Locator, type Page } from "@playwright/test";

/**
 * Opens 'Enter SMILES' on a structure's Definition step once the editor and RDKit (which checks the
 * SMILES) have loaded, as a user waits for their loaders: on a busy machine they would otherwise
 * arrive while the dialog is in use. Returns the dialog.
 */
export async function openSmilesDialog(page: Page): Promise<Locator> {
  await expect(page.getByTestId("ketcher-editor")).toBeVisible({ timeout: 60_000 });
  await page.getByRole("button", { name: "Enter SMILES" }).click();
  const dialog = page.getByRole("dialog", { name: "Enter SMILES" });
  await expect(dialog.getByRole("button", { name: "Draw structure" })).toBeEnabled({ timeout: 60_000 });
  return dialog;
}
