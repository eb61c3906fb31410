import { expect, type Page, test } from "@playwright/test";
import { artifact, signUp } from "../support/auth";

async function next(page: Page) {
  await page.getByRole("button", { name: "Next" }).click();
}

/** Adds the first `count` blocks of the catalogue list in step 1 by name. */
async function addBlock(page: Page, name: string) {
  await page.getByRole("button", { name: `Add ${name}`, exact: true }).click();
}

/** Step 1: add two blocks; each shows loading, then a check. */
async function addTwoBlocks(page: Page) {
  const added = page.getByTestId("added-blocks");
  await addBlock(page, "Ethylene");
  await expect(added.getByLabel("Adding...")).toBeVisible();
  await expect(added.getByLabel("Added")).toBeVisible();
  await addBlock(page, "Styrene");
  await expect(added.getByLabel("Added")).toHaveCount(2);
  await expect(page.getByText("Linear: 2")).toBeVisible();
  await expect(page.getByTestId("catalogue-blocks").getByText("Already added")).toHaveCount(2);
  await page.screenshot({ path: artifact("polymer-builder-1-blocks"), fullPage: true });
}

/** Step 2: a linear block segment (occurrences checked, a block moved). */
async function addBlockSegment(page: Page) {
  await expect(page.getByText("No segments added.")).toBeVisible();
  const blockForm = page.getByRole("region", { name: "Linear block" });
  await blockForm.getByLabel("Segment name").fill("PE-b-PS");
  await blockForm.getByRole("button", { name: "Add Ethylene", exact: true }).click();
  await blockForm.getByRole("button", { name: "Add Styrene" }).click();
  // Digits only, no leading zero: a typed 0 is refused; an empty occurrence is required.
  await blockForm.getByLabel("Occurrence Ethylene").fill("0");
  await expect(blockForm.getByLabel("Occurrence Ethylene")).toHaveValue("1");
  await blockForm.getByLabel("Occurrence Ethylene").fill("");
  await blockForm.getByRole("button", { name: "Add segment" }).click();
  await expect(blockForm.getByText("Required field")).toBeVisible();
  await blockForm.getByLabel("Occurrence Ethylene").fill("6");
  await blockForm.getByLabel("Occurrence Styrene").fill("4");
  await blockForm.getByRole("button", { name: "Move up Styrene" }).click();
  await expect(blockForm.getByText("Total building blocks: 10")).toBeVisible();
  await blockForm.getByRole("button", { name: "Add segment" }).click();
  await expect(page.getByText("Segment created")).toBeVisible();
  await expect(page.getByText("Linear block: 1")).toBeVisible();
}

/** Step 2: a linear random segment from block ratios. */
async function addRandomSegment(page: Page) {
  await page.getByRole("button", { name: "Linear random (block-ratio)" }).click();
  const randomForm = page.getByRole("region", { name: "Linear random (block-ratio)" });
  await randomForm.getByLabel("Segment name").fill("random PE/PS");
  await randomForm.getByRole("button", { name: "Add Ethylene", exact: true }).click();
  await randomForm.getByRole("button", { name: "Add Styrene" }).click();
  await randomForm.getByLabel("Ratio Styrene").fill("2");
  await randomForm.getByLabel("Multiplier").fill("3");
  await expect(randomForm.getByText("33.33 %")).toBeVisible();
  await expect(randomForm.getByText("66.67 %")).toBeVisible();
  await expect(randomForm.getByText("Total building blocks: 9")).toBeVisible();
  await page.screenshot({ path: artifact("polymer-builder-2-random-segment"), fullPage: true });
  await randomForm.getByRole("button", { name: "Add segment" }).click();
  await expect(page.getByText("Linear random: 1")).toBeVisible();
}

/** Step 2: a linear peptide segment; a sequence of mixed case is refused. */
async function addPeptideSegment(page: Page) {
  await page.getByRole("button", { name: "Linear peptide" }).click();
  const peptideForm = page.getByRole("region", { name: "Linear peptide" });
  await peptideForm.getByLabel("Segment name").fill("GAG");
  await peptideForm.getByLabel("Sequence", { exact: true }).fill("Gly-ALA");
  await peptideForm.getByRole("button", { name: "Add segment" }).click();
  await expect(peptideForm.getByText(/^All three-letter codes must use consistent format/)).toBeVisible();
  await peptideForm.getByLabel("Sequence", { exact: true }).fill("Gly-Ala-Gly");
  await peptideForm.getByRole("button", { name: "Add segment" }).click();
  await expect(page.getByText("Linear peptide: 1")).toBeVisible();
  await page.screenshot({ path: artifact("polymer-builder-2-segments"), fullPage: true });
}

/** Step 3: a linear polymer of the block segment twice and the peptide once. */
async function addPolymer(page: Page) {
  await page.getByLabel("Polymer name").fill("PE-PS-peptide");
  await page.getByRole("textbox", { name: "Force field" }).click();
  await page.getByRole("option", { name: "gaff2", exact: true }).click();
  await page.getByRole("button", { name: "Add PE-b-PS" }).click();
  await page.getByRole("button", { name: "Add GAG" }).click();
  await page.getByLabel("Occurrence PE-b-PS").fill("2");
  await page.getByRole("button", { name: "Add polymer" }).click();
  await expect(page.getByText("Polymer created")).toBeVisible();
  await expect(page.getByText("Linear: 1")).toBeVisible();
  await page.screenshot({ path: artifact("polymer-builder-3-polymers"), fullPage: true });
}

/** Step 4: cell sides, walls, three copies of the polymer. */
async function saveSetup(page: Page) {
  await page.getByText("Cell sides", { exact: true }).click();
  await page.getByLabel("X (Å)").fill("60");
  await page.getByRole("button", { name: "Add PE-PS-peptide" }).click();
  await page.getByLabel("Occurrence PE-PS-peptide").fill("3");
  await page.getByLabel("Hard walls in z").check();
  await page.getByRole("button", { name: "Save system setup" }).click();
  await expect(page.getByText("Your system setup was updated")).toBeVisible();
  await expect(page.getByText("1. PE-PS-peptide × 3")).toBeVisible();
  await page.screenshot({ path: artifact("polymer-builder-4-setup"), fullPage: true });
}

/** Step 5: the protocol, for advanced users; switching dynamics off keeps its values. */
async function saveProtocol(page: Page) {
  await expect(page.getByText("For advanced users only")).toBeVisible();
  await page.getByLabel("Random seed").fill("-2");
  await page.getByRole("button", { name: "Save simulation protocol" }).click();
  await expect(page.getByText("Random seed must be -1 or greater")).toBeVisible();
  await page.getByLabel("Random seed").fill("7");
  await page.getByLabel("Minimization steps").fill("50");
  await page.getByLabel("Dynamics", { exact: true }).uncheck();
  await page.getByRole("button", { name: "Save simulation protocol" }).click();
  const savedProtocol = page.getByRole("complementary", { name: "Saved simulation protocol" });
  await expect(savedProtocol.getByText("Random seed: 7")).toBeVisible();
  await expect(savedProtocol.getByText("Dynamics: Off")).toBeVisible();
  await page.screenshot({ path: artifact("polymer-builder-5-protocol"), fullPage: true });
}

/** Step 6: review with the block-details modal, then create; the system is in the catalogue. */
async function reviewAndCreate(page: Page) {
  await expect(page.getByText("Complete all preceding steps to enable system creation.")).toBeHidden();
  await page.getByRole("button", { name: "Ethylene" }).first().click();
  const modal = page.getByRole("dialog", { name: "Building block details" });
  await expect(modal.getByText("[*:1]CC[*:2]")).toBeVisible();
  await expect(modal.getByRole("link", { name: "Go to current definition" })).toBeVisible();
  await page.screenshot({ path: artifact("polymer-builder-6-review"), fullPage: true });
  await page.keyboard.press("Escape");
  await page.getByLabel("System name").fill("PE PS peptide box");
  await page.getByRole("button", { name: "Create system" }).click();
  await expect(page.getByText("System created")).toBeVisible();
  await expect(page).toHaveURL(/\/systems\?type=system/);
  await expect(page.getByRole("heading", { name: "Molecular systems" })).toBeVisible();
  await expect(page.getByRole("link", { name: "PE PS peptide box" })).toBeVisible();
  await page.screenshot({ path: artifact("polymer-builder-created"), fullPage: true });
}

test("a user builds a system through all six steps and finds it in the catalogue", async ({ page }) => {
  await signUp(page);
  await page.getByRole("navigation").getByRole("link", { name: "Polymer Builder" }).click();
  await expect(page.getByRole("heading", { name: "Polymer builder" })).toBeVisible();

  await test.step("1. building blocks", () => addTwoBlocks(page));
  await next(page);
  await test.step("2. segments", async () => {
    await addBlockSegment(page);
    await addRandomSegment(page);
    await addPeptideSegment(page);
  });
  await next(page);
  await test.step("3. polymers", () => addPolymer(page));
  await next(page);
  await test.step("4. system setup", () => saveSetup(page));
  await next(page);
  await test.step("5. simulation protocol", () => saveProtocol(page));
  await next(page);
  await test.step("6. review and create", () => reviewAndCreate(page));

  // The builder starts again with a fresh draft.
  await page.getByRole("navigation").getByRole("link", { name: "Polymer Builder" }).click();
  await expect(page.getByText("No building blocks added.")).toBeVisible();
});

test("a user clears a draft and starts again at step 1", async ({ page }) => {
  await signUp(page);
  await page.goto("/polymer-builder");
  await addBlock(page, "Ethylene");
  await expect(page.getByTestId("added-blocks").getByLabel("Added")).toBeVisible();
  await next(page);
  await expect(page.getByText("No segments added.")).toBeVisible();

  await page.getByRole("button", { name: "Clear draft" }).click();
  const modal = page.getByRole("dialog", { name: "Are you sure?" });
  await expect(modal.getByText(/permanently deletes all system information and progress/)).toBeVisible();
  await page.screenshot({ path: artifact("polymer-builder-clear-modal") });
  await modal.getByRole("button", { name: "Cancel" }).click();
  await expect(modal).toBeHidden();
  await expect(page.getByText("No segments added.")).toBeVisible();

  await page.getByRole("button", { name: "Clear draft" }).click();
  await page.getByRole("dialog", { name: "Are you sure?" }).getByRole("button", { name: "Clear draft" }).click();
  await expect(page.getByText("The draft was cleared")).toBeVisible();
  await expect(page.getByText("No building blocks added.")).toBeVisible();
  await expect(page.getByRole("button", { name: "Add Ethylene", exact: true })).toBeVisible();
  await expect(page.getByRole("button", { name: "Previous" })).toBeHidden();
});
