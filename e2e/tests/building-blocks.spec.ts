import { randomUUID } from "node:crypto";
import { expect, type Page, test } from "@playwright/test";
import { artifact, signUp } from "../support/auth";

/** The dashboard's building blocks card. */
function blocksCard(page: Page) {
  return page.locator(".mantine-Card-root", { hasText: "Building blocks" });
}

/** A new user starts with the sample blocks: more than five, so the card offers SHOW ALL. */
async function showAllBlocks(page: Page) {
  const card = blocksCard(page);
  await expect(
    card
      .getByRole("link", { name: "Styrene" })
      .or(card.getByRole("link", { name: "PAMAM" }))
      .first(),
  ).toBeVisible();
  await expect(card.getByRole("link", { name: "SHOW ALL" })).toBeVisible();
  await card.getByRole("link", { name: "SHOW ALL" }).click();
  await expect(page.getByRole("heading", { name: "Building blocks" })).toBeVisible();
}

/** Create block → Linear; an invalid repeating unit is explained while typing, before saving. */
async function startLinearBlock(page: Page, name: string) {
  await page.getByRole("button", { name: "Create block" }).click();
  await page.getByRole("menuitem", { name: "Linear" }).click();
  await expect(page.getByRole("heading", { name: "Create linear building block" })).toBeVisible();
  await page.getByLabel("Name").fill(name);

  // An invalid repeating unit is explained while typing, before saving.
  const repeatingUnit = page.getByLabel("Repeating unit", { exact: true });
  await repeatingUnit.fill("[*:1]CC(C)");
  await expect(
    page.getByText("This SMILES must contain exactly one [*:1] and exactly one [*:2] connection"),
  ).toBeVisible();
  await repeatingUnit.fill("*CC(C)[*:2]");
  await expect(page.getByText("Connection points must be written in brackets with a label, e.g. [*:1]")).toBeVisible();
  await page.screenshot({ path: artifact("building-blocks-invalid-smiles"), fullPage: true });
}

/** A valid repeating unit: no message, its drawing labels both connection points; then saved. */
async function saveValidBlock(page: Page) {
  const repeatingUnit = page.getByLabel("Repeating unit", { exact: true });
  await repeatingUnit.fill("[*:1]CC(C)[*:2]");
  await expect(page.getByText(/This SMILES must contain/)).toBeHidden();
  const drawing = page.getByRole("img", { name: "2D structure of [*:1]CC(C)[*:2]" });
  await expect(drawing.locator("svg")).toBeVisible();
  await expect(drawing.locator("svg text, svg path[class*='atom-']").first()).toBeAttached();
  await page.screenshot({ path: artifact("building-blocks-valid-smiles"), fullPage: true });

  // Only one SMILES field is edited at a time: finish it, then save.
  await expect(page.getByRole("button", { name: "Edit Head repeating unit" })).toBeDisabled();
  await page.getByRole("button", { name: "Done editing Repeating unit" }).click();
  await expect(page.getByRole("button", { name: "Edit Head repeating unit" })).toBeEnabled();
  await page.getByRole("button", { name: "Create block" }).click();
  await expect(page.getByText("Linear building block created")).toBeVisible();
  await expect(page).toHaveURL(/\/building-blocks(\?|$)/);
}

/** Find it by name, archive it (listed under Archived blocks) and recover it. */
async function findArchiveRecover(page: Page, name: string) {
  await page.getByPlaceholder("Search building blocks by name...").fill(name.toLowerCase());
  const row = page.getByRole("row", { name: new RegExp(name) });
  await expect(row).toBeVisible();
  await expect(page.getByRole("row")).toHaveCount(2); // header + the match
  await page.screenshot({ path: artifact("building-blocks-search") });

  // Archive: gone from the active blocks, listed under Archived blocks.
  await row.getByRole("button", { name: `Archive ${name}` }).click();
  await expect(page.getByText("Building block archived")).toBeVisible();
  await expect(row).toBeHidden();
  await page.getByText("Archived blocks").click();
  await expect(page).toHaveURL(/archived=true/);
  const archivedRow = page.getByRole("row", { name: new RegExp(name) });
  await expect(archivedRow).toBeVisible();
  await page.screenshot({ path: artifact("building-blocks-archived") });

  // Recover: back among the active blocks.
  await archivedRow.getByRole("button", { name: `Recover ${name}` }).click();
  await expect(page.getByText("Building block recovered")).toBeVisible();
  await expect(archivedRow).toBeHidden();
  await page.getByText("Active blocks").click();
  await expect(page.getByRole("row", { name: new RegExp(name) })).toBeVisible();
}

/** The dashboard card lists the most recently modified blocks first, linking to the detail page. */
async function openFromDashboard(page: Page, name: string) {
  await page.getByRole("navigation").getByRole("link", { name: "Home" }).click();
  const card = blocksCard(page);
  const blockLink = card.getByRole("link", { name });
  await expect(blockLink).toBeVisible();
  await page.screenshot({ path: artifact("building-blocks-dashboard") });
  await blockLink.click();
  await expect(page).toHaveURL(/\/building-blocks\/[0-9a-f-]{36}\?type=linear$/);
  await expect(page.getByRole("heading", { name })).toBeVisible();
  await expect(page.getByText(/^Created: \d{2}\/\d{2}\/\d{4}$/)).toBeVisible();
  await page.screenshot({ path: artifact("building-blocks-detail"), fullPage: true });
}

test("a user creates a linear block, finds it, archives and recovers it, and sees it on the dashboard", async ({
  page,
}) => {
  await signUp(page);
  const name = `Propylene ${randomUUID().slice(0, 6)}`;

  await test.step("show all blocks", () => showAllBlocks(page));
  await test.step("an invalid repeating unit", () => startLinearBlock(page, name));
  await test.step("a valid one, saved", () => saveValidBlock(page));
  await test.step("find, archive, recover", () => findArchiveRecover(page, name));
  await test.step("on the dashboard", () => openFromDashboard(page, name));
});
