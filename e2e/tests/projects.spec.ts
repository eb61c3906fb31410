import { randomUUID } from "node:crypto";
import { type BrowserContext, expect, type Page, test } from "@playwright/test";
import { signUp } from "../support/auth";
import { buildTinySystem } from "../support/polymerBuilder";

/** The user guide's screenshots (docs/guide/public/images): taken here on every run so they show
 * the screens as they are; committed, so the guide builds without a browser (docs/architecture.md). */
const guideScreen = (name: string) => `../docs/guide/public/images/${name}.png`;
const SCREEN = { width: 1280, height: 760 };

async function snap(page: Page, name: string) {
  // Toasts come and go; the guide shows the screen, not a passing message.
  await page.locator("[data-sonner-toast]").evaluateAll((toasts) => {
    for (const toast of toasts) (toast as HTMLElement).style.visibility = "hidden";
  });
  // The screen at rest: scrolled to the top, nothing focused (a focus ring would change the image).
  await page.evaluate(() => {
    window.scrollTo(0, 0);
    (document.activeElement as HTMLElement | null)?.blur();
  });
  await page.screenshot({ path: guideScreen(name), animations: "disabled" });
  await page.locator("[data-sonner-toast]").evaluateAll((toasts) => {
    for (const toast of toasts) (toast as HTMLElement).style.visibility = "";
  });
}

/** Double-clicking 'Create block' makes one block. */
async function createBlockByDoubleClick(page: Page) {
  const blockName = `Propylene ${randomUUID().slice(0, 6)}`;
  await page.getByRole("navigation").getByRole("link", { name: "Building Blocks" }).click();
  await expect(page.getByRole("heading", { name: "Building blocks" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Styrene" }).first()).toBeVisible();
  await snap(page, "building-blocks");
  await page.getByRole("button", { name: "Create block" }).click();
  await page.getByRole("menuitem", { name: "Linear" }).click();
  await page.getByLabel("Name").fill(blockName);
  await page.getByLabel("Repeating unit", { exact: true }).fill("[*:1]CC(C)[*:2]");
  await page.getByRole("button", { name: "Done editing Repeating unit" }).click();
  // The form checks the SMILES with RDKit first: wait until it has drawn the unit.
  await expect(page.getByRole("img", { name: "2D structure of [*:1]CC(C)[*:2]" }).locator("svg")).toBeVisible();
  await page.getByRole("button", { name: "Create block" }).dblclick();
  await expect(page.getByText("Linear building block created")).toBeVisible();
  await page.getByPlaceholder("Search building blocks by name...").fill(blockName);
  await expect(page.getByRole("row", { name: new RegExp(blockName) })).toHaveCount(1);
}

/** Creates a project (its name is required): listed with no systems. */
async function createProject(page: Page) {
  await page.getByRole("navigation").getByRole("link", { name: "Modeling Compute" }).click();
  await expect(page.getByText("No projects added")).toBeVisible();
  await page.getByRole("button", { name: "Add project" }).click();
  const create = page.getByRole("dialog", { name: "Create Project" });
  await create.getByRole("button", { name: "Create" }).click();
  await expect(create.getByText("Required field")).toBeVisible();
  await create.getByLabel("Name").fill("Polyolefin melts");
  await expect(create.getByText("Required field")).toBeHidden();
  await create.getByLabel("Description").fill("PE and PP melts for the rheology study");
  await create.getByRole("button", { name: "Create" }).click();
  await expect(page.getByText("Project created")).toBeVisible();
  const projectRow = page.getByRole("row", { name: /Polyolefin melts/ });
  await expect(projectRow.getByText("0 systems")).toBeVisible();
}

/** A system added from a structure, filed under the project at its Details step. */
async function addStructureSystemToProject(page: Page) {
  await page.getByRole("navigation").getByRole("link", { name: "Add Molecular System" }).click();
  await page.getByLabel("Name").fill("Aspirin");
  await page.getByLabel("From structure").check();
  await page.getByRole("textbox", { name: "Project" }).click();
  await page.getByRole("option", { name: "Polyolefin melts" }).click();
  await snap(page, "add-molecular-system");
  await page.getByRole("button", { name: "Next" }).click();
  await expect(page.getByText("Aspirin added to Polyolefin melts")).toBeVisible();
}

/** A system from the polymer builder, filed under the project as it is created (the guide shows
 * the builder's last step). */
async function buildSystemIntoProject(page: Page, systemName: string) {
  await buildTinySystem(page, systemName, async () => {
    await page.getByRole("textbox", { name: "Project" }).click();
    await page.getByRole("option", { name: "Polyolefin melts" }).click();
    await snap(page, "polymer-builder");
  });
  await expect(page.getByText(`${systemName} added to Polyolefin melts`)).toBeVisible();
}

/** From the catalogue's row: take it out of the project and file it again; then filter by project. */
async function refileFromCatalogue(page: Page, systemName: string) {
  await page.getByRole("radiogroup", { name: "Which systems to show" }).getByText("System", { exact: true }).click();
  const systemRow = page.getByRole("row").filter({ hasText: systemName });
  await systemRow.getByRole("button", { name: `${systemName} is in project Polyolefin melts` }).click();
  await page.getByRole("menuitem", { name: "Remove from Polyolefin melts" }).click();
  await expect(page.getByText(`${systemName} removed from Polyolefin melts`)).toBeVisible();
  await systemRow.getByRole("button", { name: `Add ${systemName} to a project` }).click();
  await page.getByRole("menuitem", { name: "Polyolefin melts" }).click();
  await expect(page.getByText(`${systemName} added to Polyolefin melts`).first()).toBeVisible();
  await page.getByRole("textbox", { name: "Filter by project" }).click();
  await page.getByRole("option", { name: "Polyolefin melts" }).click();
  await expect(page).toHaveURL(/project_id=/);
  await expect(systemRow).toBeVisible();
  await snap(page, "systems");
}

/** The project shows its system with its status tag; edit it. */
async function editProject(page: Page, systemName: string) {
  const projectRow = page.getByRole("row", { name: /Polyolefin melts/ });
  await page.getByRole("navigation").getByRole("link", { name: "Modeling Compute" }).click();
  await expect(projectRow.getByText("2 systems")).toBeVisible();
  await projectRow.getByRole("button", { name: "Edit Polyolefin melts" }).click();
  const update = page.getByRole("dialog", { name: "Update Project" });
  await update.getByLabel("Name").fill("Polyolefin melts 2026");
  await update.getByRole("button", { name: "Save" }).click();
  await expect(page.getByText("Project updated")).toBeVisible();
  const renamed = page.getByRole("row", { name: /Polyolefin melts 2026/ });
  await renamed.getByRole("button", { name: "Show the systems of Polyolefin melts 2026" }).click();
  // The innermost row: the project's own row holds the table of its systems too.
  const filed = page.getByRole("row").filter({ hasText: systemName }).last();
  await expect(filed.getByText("Not submitted")).toBeVisible();
  await snap(page, "projects");
}

/** Delete it after confirming: the system stays. */
async function deleteProject(page: Page, systemName: string) {
  const renamed = page.getByRole("row", { name: /Polyolefin melts 2026/ });
  await renamed.getByRole("button", { name: "Delete Polyolefin melts 2026" }).click();
  const confirm = page.getByRole("dialog", { name: "Delete project" });
  await expect(confirm.getByText(/Its 2 systems stay in your molecular systems/)).toBeVisible();
  await confirm.getByRole("button", { name: "Delete project" }).click();
  await expect(page.getByText("Project deleted")).toBeVisible();
  await expect(page.getByText("No projects added")).toBeVisible();
  await page.getByRole("navigation").getByRole("link", { name: "Molecular Systems" }).click();
  await page.getByRole("radiogroup", { name: "Which systems to show" }).getByText("System", { exact: true }).click();
  await expect(page.getByRole("row").filter({ hasText: systemName })).toBeVisible();
}

/** The sidebar's Documentation opens the user guide in a new tab; the API explorer is one link on. */
async function openGuide(page: Page, context: BrowserContext) {
  const [guide] = await Promise.all([
    context.waitForEvent("page"),
    page.getByRole("link", { name: "Documentation" }).click(),
  ]);
  await guide.waitForLoadState();
  await expect(guide).toHaveURL(/\/docs\/?$/);
  await expect(guide.getByRole("heading", { name: "PolyForge user guide", level: 1 })).toBeVisible();
  await guide.getByRole("link", { name: "Projects (Modeling Compute)" }).first().click();
  await expect(guide.getByRole("heading", { name: "Projects (Modeling Compute)", level: 1 })).toBeVisible();
  await expect(guide.locator('img[src*="images/projects"]')).toBeVisible();
  await guide.goto("/docs/");
  const [explorer] = await Promise.all([
    context.waitForEvent("page"),
    guide.getByRole("link", { name: "API explorer" }).first().click(),
  ]);
  await expect(explorer).toHaveURL(/\/api\/docs/);
  await expect(explorer.getByText("PolyForge API").first()).toBeVisible();
}

test("projects: create, file systems, edit and delete (systems stay); the user guide; one block per double click", async ({
  page,
  context,
}) => {
  test.setTimeout(300_000);
  await page.setViewportSize(SCREEN);
  await signUp(page);
  await snap(page, "dashboard");

  await test.step("one block per double click", () => createBlockByDoubleClick(page));
  await test.step("create a project", () => createProject(page));
  await test.step("file a system from a structure", () => addStructureSystemToProject(page));
  // A fixed name (each run signs up a new user): the screenshots change only when a screen does.
  const systemName = "PE melt";
  await test.step("file a system from the builder", () => buildSystemIntoProject(page, systemName));
  await test.step("refile from the catalogue", () => refileFromCatalogue(page, systemName));
  await test.step("edit the project", () => editProject(page, systemName));
  await test.step("delete the project", () => deleteProject(page, systemName));
  await test.step("the user guide and the API explorer", () => openGuide(page, context));
});
