import { expect, type Page } from "@playwright/test";
import { artifact } from "./auth";

/** A small melt through the polymer builder's six steps: 25 chains of four ethylene units in a 21 Å
 * cube (0.51 g/cm³, so the engine grows it with softer limits and relaxes it to the full ones; the
 * smallest cell the 10 Å MD cutoff allows), a short minimisation and a few thousand MD steps. */
export async function buildTinySystem(page: Page, systemName: string, beforeCreate?: () => Promise<void>) {
  const next = () => page.getByRole("button", { name: "Next" }).click();
  await page.getByRole("navigation").getByRole("link", { name: "Polymer Builder" }).click();
  await page.getByRole("button", { name: "Add Ethylene", exact: true }).click();
  await expect(page.getByTestId("added-blocks").getByLabel("Added")).toBeVisible();
  await next();

  const blockForm = page.getByRole("region", { name: "Linear block" });
  await blockForm.getByLabel("Segment name").fill("PE4");
  await blockForm.getByRole("button", { name: "Add Ethylene", exact: true }).click();
  await blockForm.getByLabel("Occurrence Ethylene").fill("4");
  await blockForm.getByRole("button", { name: "Add segment" }).click();
  await expect(page.getByText("Segment created")).toBeVisible();
  await next();

  await page.getByLabel("Polymer name").fill("PE");
  await page.getByRole("textbox", { name: "Force field" }).click();
  await page.getByRole("option", { name: "gaff2", exact: true }).click();
  await page.getByRole("button", { name: "Add PE4" }).click();
  await page.getByRole("button", { name: "Add polymer" }).click();
  await expect(page.getByText("Polymer created")).toBeVisible();
  await next();

  await page.getByText("Cell sides", { exact: true }).click();
  for (const axis of ["X", "Y", "Z"]) await page.getByLabel(`${axis} (Å)`).fill("21");
  await page.getByRole("button", { name: "Add PE", exact: true }).click();
  await page.getByLabel("Occurrence PE").fill("25");
  // The atom ceiling at the field, before saving: 4 ethylene units of 2 carbons a chain, 25 chains
  // ("up to" while the estimate stands, the count once RDKit has read the unit).
  await expect(page.getByText(/^(up to )?8 heavy atoms per chain$/)).toBeVisible();
  await expect(
    page.getByText("The system: up to 200 heavy atoms (hydrogens not counted); this server builds at most 1,000,000."),
  ).toBeVisible();
  await page.screenshot({ path: artifact("polymer-builder-setup-atoms"), fullPage: true });
  await page.getByRole("button", { name: "Save system setup" }).click();
  await expect(page.getByText("Your system setup was updated")).toBeVisible();
  await next();

  await page.getByLabel("Random seed").fill("11");
  await page.getByLabel("Minimization steps").fill("50");
  await page.getByLabel("Dynamics steps").fill("5000");
  await page.getByRole("button", { name: "Save simulation protocol" }).click();
  await expect(page.getByRole("complementary", { name: "Saved simulation protocol" })).toBeVisible();
  await next();

  // The review counts every unit, per chain and in the system: H-(CH2CH2)4-H is C8H18, 114.2 g/mol.
  const composition = page.getByRole("table", { name: "PE" });
  await expect(composition.getByRole("row", { name: "Ethylene 4 100" })).toBeVisible();
  await expect(page.getByText("One chain: 26 atoms, 114.2 g/mol")).toBeVisible();
  await expect(
    page.getByText("The whole system: 25 chains, 650 atoms (200 without hydrogens), 2,855.8 g/mol"),
  ).toBeVisible();

  await page.getByLabel("System name").fill(systemName);
  await beforeCreate?.();
  await page.getByRole("button", { name: "Create system" }).click();
  await expect(page.getByText("System created")).toBeVisible();
  await expect(page).toHaveURL(/\/systems\?type=system/);
}
