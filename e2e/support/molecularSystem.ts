import { expect, type Locator, type Page } from "@playwright/test";

/** Opens Add Molecular System from the sidebar and passes the Details step; the new system's id is
 * then in the URL, so a reload resumes it. */
export async function startSystem(page: Page, name: string, origin: "From file" | "From structure") {
  await page.getByRole("navigation").getByRole("link", { name: "Add Molecular System" }).click();
  await expect(page.getByRole("heading", { name: "Add molecular system" })).toBeVisible();
  await page.getByLabel("Name").fill(name);
  await page.getByLabel("Description").fill("Added by the end-to-end test");
  await page.getByLabel(origin).check();
  await page.getByRole("button", { name: "Next" }).click();
  await expect(page).toHaveURL(/\/add-molecular-system\?systemId=[0-9a-f-]{36}$/);
}

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
