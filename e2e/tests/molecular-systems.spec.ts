import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";
import { artifact, signUp } from "../support/auth";
import { openSmilesDialog, startSystem } from "../support/molecularSystem";

/** Three water molecules in a 12 Å cell: small, and a system (several copies of one kind). */
const WATER_PDB = `CRYST1   12.000   12.000   12.000  90.00  90.00  90.00 P 1           1
HETATM    1  OW  HOH A   1       2.000   3.000   4.000  1.00  0.00           O
HETATM    2  HW1 HOH A   1       2.957   3.000   4.000  1.00  0.00           H
HETATM    3  HW2 HOH A   1       1.760   3.927   4.000  1.00  0.00           H
HETATM    4  OW  HOH A   2       5.000   3.000   4.000  1.00  0.00           O
HETATM    5  HW1 HOH A   2       5.957   3.000   4.000  1.00  0.00           H
HETATM    6  HW2 HOH A   2       4.760   3.927   4.000  1.00  0.00           H
HETATM    7  OW  HOH A   3       8.000   3.000   4.000  1.00  0.00           O
HETATM    8  HW1 HOH A   3       8.957   3.000   4.000  1.00  0.00           H
HETATM    9  HW2 HOH A   3       7.760   3.927   4.000  1.00  0.00           H
END
`;

const ASPIRIN = "CC(=O)Oc1ccccc1C(=O)O";

test("a user adds a system from a .pdb file and one from a typed structure, sees both validated live and in the catalogue", async ({
  page,
}) => {
  test.setTimeout(240_000);
  page.on("pageerror", (error) => console.log("PAGEERROR", error.message, error.stack?.slice(0, 1500)));
  page.on("console", (message) => {
    if (message.type() === "error") console.log("CONSOLE", message.text().slice(0, 1500));
  });
  await signUp(page);
  const suffix = randomUUID().slice(0, 6);
  const waterName = `Water box ${suffix}`;
  const aspirinName = `Aspirin ${suffix}`;

  // From file: a wrong extension is refused before anything is sent, then the .pdb is uploaded.
  await startSystem(page, waterName, "From file");
  const fileInput = page.locator('input[type="file"]');
  await fileInput.setInputFiles({ name: "water.xyz", mimeType: "text/plain", buffer: Buffer.from(WATER_PDB) });
  await expect(page.getByRole("alert")).toHaveText("The file has an unsupported file type. Accepted: .pdb, .gro");
  await fileInput.setInputFiles({ name: "water.pdb", mimeType: "chemical/x-pdb", buffer: Buffer.from(WATER_PDB) });
  // Validated without a reload: the status arrives through the notification socket (or polling).
  await expect(page.getByText("File validated")).toBeVisible({ timeout: 90_000 });
  const found = page.getByRole("table", { name: "What was found" });
  await expect(found.getByRole("row", { name: /HOH 3 3 H2O/ })).toBeVisible();
  await expect(page.getByText("12.00 × 12.00 × 12.00 Å")).toBeVisible();
  await expect(page.getByTestId("structure-viewer").locator("canvas")).toBeVisible();
  await expect(page.getByRole("button", { name: "Choose file" })).toBeDisabled();
  await page.screenshot({ path: artifact("molecular-system-file-validated"), fullPage: true });

  // From structure: a bad SMILES is refused, aspirin is drawn in Ketcher and saved.
  await startSystem(page, aspirinName, "From structure");
  const dialog = await openSmilesDialog(page);
  await dialog.getByLabel("SMILES").fill("C1CC(");
  await dialog.getByRole("button", { name: "Draw structure" }).click();
  await expect(dialog.getByText("Invalid SMILES format")).toBeVisible();
  await dialog.getByLabel("SMILES").fill(ASPIRIN);
  await dialog.getByRole("button", { name: "Draw structure" }).click();
  await expect(dialog).toBeHidden({ timeout: 30_000 });
  await page.screenshot({ path: artifact("molecular-system-structure-drawn"), fullPage: true });
  const save = page.getByRole("button", { name: "Save structure" });
  await save.click();
  await expect(save).toBeDisabled();
  await expect(page.getByText("Structure validated")).toBeVisible({ timeout: 90_000 });
  await expect(page.getByRole("table", { name: "What was found" }).getByRole("row", { name: /C9H8O4/ })).toBeVisible();
  await expect(page.getByTestId("structure-viewer").locator("canvas")).toBeVisible();
  await page.screenshot({ path: artifact("molecular-system-structure-validated"), fullPage: true });

  // The Potentials step opens once converted (e2e/tests/potentials.spec.ts goes on from there).
  await page.getByRole("button", { name: "Next" }).click();
  await expect(page.getByRole("button", { name: "Add potential" })).toBeVisible();

  // Both in the catalogue with their status tags: aspirin is one molecule, the water box a system.
  await page.getByRole("navigation").getByRole("link", { name: "Molecular Systems" }).click();
  const aspirinRow = page.getByRole("row", { name: new RegExp(aspirinName) });
  await expect(aspirinRow).toBeVisible();
  await expect(aspirinRow.locator('[data-status="completed"]')).toBeVisible();
  await page.goto("/systems?type=system");
  const waterRow = page.getByRole("row", { name: new RegExp(waterName) });
  await expect(waterRow).toBeVisible();
  await expect(waterRow.locator('[data-status="completed"]')).toBeVisible();
  await page.screenshot({ path: artifact("molecular-systems-catalogue"), fullPage: true });

  // Its detail page shows the flow where it stands, not the builder summary.
  await waterRow.getByRole("link", { name: waterName }).click();
  await expect(page.getByRole("heading", { name: waterName })).toBeVisible();
  await expect(page.getByText("File validated")).toBeVisible();
  await page.screenshot({ path: artifact("molecular-system-detail"), fullPage: true });

  // Archived like any other system: gone from the catalogue.
  await page.getByRole("link", { name: "← Back to molecular systems" }).click();
  await page
    .getByRole("row", { name: new RegExp(waterName) })
    .getByRole("button", { name: `Delete ${waterName}` })
    .click();
  await page.getByRole("dialog", { name: "Delete system" }).getByRole("button", { name: "Delete system" }).click();
  await expect(page.getByText("System deleted")).toBeVisible();
  await expect(page.getByRole("row", { name: new RegExp(waterName) })).toHaveCount(0);
});

/** The water box after enough REMARK lines to make the file 11 MB: three 5 MB parts. */
function threePartPdb(): Buffer {
  const remark = `${"REMARK   1 padding so that the file is sent in several parts".padEnd(80, " ")}\n`;
  const lines = Math.ceil((11 * 1024 * 1024) / remark.length);
  return Buffer.concat([Buffer.from(remark.repeat(lines)), Buffer.from(WATER_PDB)]);
}

const PART_URL = /\/api\/v2\/uploads\/[^/]+\/parts\/(\d+)\?/;

test("an upload interrupted by a reload goes on from the parts already stored when the same file is chosen", async ({
  page,
}) => {
  test.setTimeout(240_000);
  await signUp(page);
  const name = `Resumed box ${randomUUID().slice(0, 6)}`;
  const file = { name: "big-water.pdb", mimeType: "chemical/x-pdb", buffer: threePartPdb() };
  await startSystem(page, name, "From file");

  // Part 1 reaches the store; parts 2 and 3 are held, as on a link that drops mid-upload.
  await page.route(PART_URL, async (route) => {
    const part = Number(PART_URL.exec(route.request().url())?.[1]);
    if (part === 1) await route.continue();
  });
  const firstPartStored = page.waitForResponse((response) => PART_URL.exec(response.url())?.[1] === "1");
  await page.locator('input[type="file"]').setInputFiles(file);
  expect((await firstPartStored).status()).toBe(200);
  await expect(page.getByText(/^Uploading file \d+%$/)).toBeVisible();
  await page.screenshot({ path: artifact("molecular-system-uploading") });

  // Reload: the page offers to continue with the same file.
  // The held parts die with the page; only then are the parts let through again.
  await page.reload();
  await page.unrouteAll({ behavior: "ignoreErrors" });
  await expect(page.getByText(/An upload of big-water.pdb \(11 MB\) was interrupted/)).toBeVisible();
  const sentParts: number[] = [];
  page.on("request", (request) => {
    const match = PART_URL.exec(request.url());
    if (match && request.method() === "PUT") sentParts.push(Number(match[1]));
  });
  const listed = page.waitForRequest((request) => request.url().includes("/upload/parts?upload_id="));
  await page.locator('input[type="file"]').setInputFiles(file);
  await listed;
  await expect(page.getByText("File validated")).toBeVisible({ timeout: 90_000 });
  expect(sentParts.sort()).toEqual([2, 3]);
  await expect(
    page.getByRole("table", { name: "What was found" }).getByRole("row", { name: /HOH 3 3 H2O/ }),
  ).toBeVisible();
});

test("a canceled upload says so and can be retried", async ({ page }) => {
  test.setTimeout(240_000);
  await signUp(page);
  await startSystem(page, `Canceled box ${randomUUID().slice(0, 6)}`, "From file");
  await page.route(PART_URL, async (route) => {
    if (PART_URL.exec(route.request().url())?.[1] === "1") await route.continue();
  });
  const firstPartStored = page.waitForResponse((response) => PART_URL.exec(response.url())?.[1] === "1");
  await page.locator('input[type="file"]').setInputFiles({
    name: "big-water.pdb",
    mimeType: "chemical/x-pdb",
    buffer: threePartPdb(),
  });
  await firstPartStored;
  const canceled = page.waitForResponse((response) => response.url().endsWith("/upload/cancel"));
  await page.getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByText("Upload canceled")).toBeVisible();
  expect((await canceled).status()).toBeLessThan(300);

  // Retry starts a new upload, which goes through.
  await page.unrouteAll({ behavior: "ignoreErrors" });
  await page.getByRole("button", { name: "Retry" }).click();
  await expect(page.getByText("File validated")).toBeVisible({ timeout: 90_000 });
});

test("an invalid file is explained with its line, and a corrected file can be sent instead", async ({ page }) => {
  test.setTimeout(180_000);
  await signUp(page);
  await startSystem(page, `Garbled box ${randomUUID().slice(0, 6)}`, "From file");
  // The third line's x coordinate is not a number.
  const garbled = WATER_PDB.replace("       2.000   3.000   4.000", "       abcde   3.000   4.000");
  const input = page.locator('input[type="file"]');
  await input.setInputFiles({ name: "water.pdb", mimeType: "chemical/x-pdb", buffer: Buffer.from(garbled) });
  await expect(page.getByText("Invalid file")).toBeVisible({ timeout: 90_000 });
  await expect(page.getByRole("alert")).toContainText(/Line 2: /);
  await page.screenshot({ path: artifact("molecular-system-invalid-file") });

  await expect(page.getByRole("button", { name: "Choose file" })).toBeEnabled();
  await input.setInputFiles({ name: "water.pdb", mimeType: "chemical/x-pdb", buffer: Buffer.from(WATER_PDB) });
  await expect(page.getByText("File validated")).toBeVisible({ timeout: 90_000 });
});
