import { randomUUID } from "node:crypto";
import { expect, type Page, test } from "@playwright/test";
import { artifact, signUp } from "../support/auth";
import { openSmilesDialog, startSystem } from "../support/molecularSystem";

/** Three waters in a 25 Å cell, as GROMACS writes them. */
const WATER_GRO = `Three waters
    9
    1SOL     OW    1   0.200   0.300   0.400
    1SOL    HW1    2   0.296   0.300   0.400
    1SOL    HW2    3   0.176   0.393   0.400
    2SOL     OW    4   0.500   0.300   0.400
    2SOL    HW1    5   0.596   0.300   0.400
    2SOL    HW2    6   0.476   0.393   0.400
    3SOL     OW    7   0.800   0.300   0.400
    3SOL    HW1    8   0.896   0.300   0.400
    3SOL    HW2    9   0.776   0.393   0.400
   2.50000   2.50000   2.50000
`;

/** A self-contained TIP3P topology for those three waters ([ molecules ] is the last line). */
const WATER_TOP = `; TIP3P water, written by hand
[ defaults ]
  1       2          yes        0.5      0.8333

[ atomtypes ]
  OW    8       15.9994  0.0     A      0.315061     0.636386
  HW    1       1.008    0.0     A      0.0          0.0

[ moleculetype ]
  SOL   2

[ atoms ]
   1   OW    1      SOL      OW    1     -0.834  15.9994
   2   HW    1      SOL      HW1   1      0.417   1.008
   3   HW    1      SOL      HW2   1      0.417   1.008

[ settles ]
  1   1      0.09572 0.15139

[ exclusions ]
  1 2 3
  2 1 3
  3 1 2

[ system ]
Three waters

[ molecules ]
SOL  3
`;

/** The same topology for four waters: it does not describe the structure. */
const WRONG_TOP = WATER_TOP.replace(/SOL {2}3\n$/, "SOL  4\n");

async function addPotential(page: Page, kind: "Generate" | "Upload file") {
  await page.getByRole("button", { name: "Add potential" }).click();
  await page.getByRole("menuitem", { name: kind }).click();
}

/** A drawn structure (ethanol), converted to 3D, on its Potentials step. */
async function drawEthanol(page: Page, ethanolName: string) {
  await startSystem(page, ethanolName, "From structure");
  const smiles = await openSmilesDialog(page);
  await smiles.getByLabel("SMILES").fill("CCO");
  await smiles.getByRole("button", { name: "Draw structure" }).click();
  await expect(smiles).toBeHidden({ timeout: 30_000 });
  await page.getByRole("button", { name: "Save structure" }).click();
  await expect(page.getByText("Structure validated")).toBeVisible({ timeout: 90_000 });
  await page.getByRole("button", { name: "Next" }).click();
  await expect(page.getByText(/No potentials yet/)).toBeVisible();
}

/** Generate: the numbers are checked in the form, then the defaults (GAFF2, 5 steps) are sent. */
async function generateEthanolPotential(page: Page) {
  await addPotential(page, "Generate");
  const generate = page.getByRole("form", { name: "Generate a potential" });
  await expect(generate.getByRole("textbox", { name: "Force field" })).toHaveValue("GAFF2");
  await expect(generate.getByLabel("Minimisation steps")).toHaveValue("5");
  await generate.getByLabel("Net charge").fill("0.5");
  await generate.getByRole("button", { name: "Generate" }).click();
  await expect(generate.getByText("Must be a whole number")).toBeVisible();
  await expect(generate.getByText("Required field")).toBeVisible();
  await generate.getByLabel("Name").fill("Ethanol GAFF2");
  await generate.getByLabel("Net charge").fill(" 0 ");
  await page.screenshot({ path: artifact("potential-generate-form"), fullPage: true });
  await generate.getByRole("button", { name: "Generate" }).click();
  await expect(generate).toBeHidden();
}

/** The status tag moves live (socket or polling) until the run completes; results and the zip. */
async function expectGeneratedPotential(page: Page) {
  const generated = page.getByLabel("Ethanol GAFF2", { exact: true });
  await expect(generated.locator("[data-status]").first()).toBeVisible();
  await page.screenshot({ path: artifact("potential-generating"), fullPage: true });
  await expect(generated.getByText("Completed")).toBeVisible({ timeout: 300_000 });
  const kinds = generated.getByRole("table", { name: "Atom types and charges by molecule" });
  await expect(kinds.getByRole("row")).toHaveCount(2);
  await expect(kinds.getByText("oh", { exact: true })).toBeVisible();
  await expect(generated.getByText(/kJ\/mol$/).first()).toBeVisible();
  await expect(generated.getByText("Total charge")).toBeVisible();
  const download = page.waitForEvent("download");
  await generated.getByRole("button", { name: "Download files" }).click();
  expect((await download).suggestedFilename()).toBe("ethanol_gaff2_files.zip");
  await page.screenshot({ path: artifact("potential-generated"), fullPage: true });
}

/** A file-based system (three waters in a .gro), on its Potentials step. */
async function uploadWaterSystem(page: Page, waterName: string) {
  await startSystem(page, waterName, "From file");
  await page.locator('input[type="file"]').setInputFiles({
    name: "water.gro",
    mimeType: "text/plain",
    buffer: Buffer.from(WATER_GRO),
  });
  await expect(page.getByText("File validated")).toBeVisible({ timeout: 90_000 });
  await page.getByRole("button", { name: "Next" }).click();
}

/** A .top for four waters: the form refuses a second draft and a non-.top file; then the topology. */
async function refuseWrongTop(page: Page) {
  await addPotential(page, "Upload file");
  const upload = page.getByRole("form", { name: "Upload a potential" });
  // One draft at a time.
  await addPotential(page, "Generate");
  await expect(page.getByRole("alert")).toHaveText("Finish your draft potential before creating a new one");
  await upload.getByLabel("Name").fill("TIP3P for four");
  const topInput = upload.locator('input[type="file"]');
  await topInput.setInputFiles({ name: "water.itp", mimeType: "text/plain", buffer: Buffer.from(WATER_TOP) });
  await expect(upload.getByText("The file has an unsupported file type. Accepted: .top")).toBeVisible();
  await topInput.setInputFiles({ name: "water.top", mimeType: "text/plain", buffer: Buffer.from(WRONG_TOP) });
  await upload.getByRole("button", { name: "Upload" }).click();

  // A topology for four waters is refused, saying why with the line; a saved potential is locked,
  // so it is deleted (the right .top is then sent as a new potential).
  const refused = page.getByLabel("TIP3P for four", { exact: true });
  await expect(refused.getByText("Invalid file")).toBeVisible({ timeout: 90_000 });
  await expect(refused.getByRole("alert")).toContainText("12 atoms but the structure has 9");
  await expect(refused.getByText("Locked")).toBeVisible();
  await page.screenshot({ path: artifact("potential-upload-invalid"), fullPage: true });
  await refused.getByRole("button", { name: "Delete potential TIP3P for four" }).click();
  await page
    .getByRole("dialog", { name: "Delete potential" })
    .getByRole("button", { name: "Delete potential" })
    .click();
  await expect(page.getByText("Potential deleted")).toBeVisible();
  await expect(refused).toHaveCount(0);
}

/** The right .top sent as a new potential, which is accepted and locked. */
async function uploadRightTop(page: Page) {
  const upload = page.getByRole("form", { name: "Upload a potential" });
  await addPotential(page, "Upload file");
  await upload.getByLabel("Name").fill("TIP3P by hand");
  await upload.locator('input[type="file"]').setInputFiles({
    name: "water.top",
    mimeType: "text/plain",
    buffer: Buffer.from(WATER_TOP),
  });
  await upload.getByRole("button", { name: "Upload" }).click();
  const uploaded = page.getByLabel("TIP3P by hand", { exact: true });
  await expect(uploaded.getByText("File validated")).toBeVisible({ timeout: 90_000 });
  await expect(uploaded.getByText("Locked")).toBeVisible();
  await expect(uploaded.getByRole("button", { name: "Choose file" })).toHaveCount(0);
  await page.screenshot({ path: artifact("potential-upload-valid"), fullPage: true });
}

/** Both systems in the catalogue expand to their potentials, with the system type. */
async function expectCatalogue(page: Page, ethanolName: string, waterName: string) {
  await page.getByRole("navigation").getByRole("link", { name: "Molecular Systems" }).click();
  await page.getByRole("button", { name: `Show the potentials of ${ethanolName}` }).click();
  const ethanolPotential = page.getByRole("row", { name: /Potential - Ethanol GAFF2/ });
  await expect(ethanolPotential).toBeVisible();
  await expect(ethanolPotential.getByText("Molecule")).toBeVisible();
  await page.screenshot({ path: artifact("potentials-catalogue-molecule"), fullPage: true });
  await page.goto("/systems?type=system");
  await page.getByRole("button", { name: `Show the potentials of ${waterName}` }).click();
  const waterPotential = page.getByRole("row", { name: /Potential - TIP3P by hand/ });
  await expect(waterPotential).toBeVisible();
  await expect(waterPotential.getByText("System")).toBeVisible();
  await page.screenshot({ path: artifact("potentials-catalogue-system"), fullPage: true });
}

/** Deleted from the system's detail page (a system with potentials opens on them). */
async function deleteFromDetail(page: Page, waterName: string) {
  await page.getByRole("link", { name: waterName }).click();
  await expect(page.getByRole("heading", { name: waterName })).toBeVisible();
  await page.getByRole("button", { name: "Delete potential TIP3P by hand" }).click();
  await page
    .getByRole("dialog", { name: "Delete potential" })
    .getByRole("button", { name: "Delete potential" })
    .click();
  await expect(page.getByText("Potential deleted")).toBeVisible();
  await expect(page.getByLabel("TIP3P by hand", { exact: true })).toHaveCount(0);
}

test("a user generates a potential for drawn ethanol, uploads a .top for a .gro, and sees both in the catalogue", async ({
  page,
}) => {
  test.setTimeout(420_000);
  page.on("pageerror", (error) => console.log("PAGEERROR", error.message));
  await signUp(page);
  const suffix = randomUUID().slice(0, 6);
  const ethanolName = `Ethanol ${suffix}`;
  const waterName = `Water trio ${suffix}`;

  await test.step("draw ethanol", () => drawEthanol(page, ethanolName));
  await test.step("generate a GAFF2 potential", () => generateEthanolPotential(page));
  await test.step("see it complete", () => expectGeneratedPotential(page));
  await test.step("add three waters from a .gro", () => uploadWaterSystem(page, waterName));
  await test.step("a .top for four waters is refused", () => refuseWrongTop(page));
  await test.step("the right .top is accepted", () => uploadRightTop(page));
  await test.step("both in the catalogue", () => expectCatalogue(page, ethanolName, waterName));
  await test.step("delete from the detail page", () => deleteFromDetail(page, waterName));
});
