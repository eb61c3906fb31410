import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";
import { artifact, signUp } from "../support/auth";

/** Three waters in a 12 Å cell, wrapped atom by atom as `gmx trjconv -pbc atom` writes them: the
 * second water's hydrogens sit at the far side of the cell (x = 11.4), cut from their oxygen at 0.4. */
const WRAPPED_WATER_PDB = `CRYST1   12.000   12.000   12.000  90.00  90.00  90.00 P 1           1
HETATM    1  OW  HOH A   1       2.000   3.000   4.000  1.00  0.00           O
HETATM    2  HW1 HOH A   1       2.957   3.000   4.000  1.00  0.00           H
HETATM    3  HW2 HOH A   1       1.760   3.927   4.000  1.00  0.00           H
HETATM    4  OW  HOH A   2       0.400   7.000   4.000  1.00  0.00           O
HETATM    5  HW1 HOH A   2      11.443   7.000   4.000  1.00  0.00           H
HETATM    6  HW2 HOH A   2       0.640   7.927   4.000  1.00  0.00           H
HETATM    7  OW  HOH A   3       8.000   3.000   8.000  1.00  0.00           O
HETATM    8  HW1 HOH A   3       8.957   3.000   8.000  1.00  0.00           H
HETATM    9  HW2 HOH A   3       7.760   3.927   8.000  1.00  0.00           H
END
`;

test("the 3D viewer: whole molecules, representations, colouring, reset view and full screen", async ({ page }) => {
  test.setTimeout(240_000);
  await signUp(page);
  await page.getByRole("navigation").getByRole("link", { name: "Add Molecular System" }).click();
  await page.getByLabel("Name").fill(`Wrapped water ${randomUUID().slice(0, 6)}`);
  await page.getByLabel("From file").check();
  await page.getByRole("button", { name: "Next" }).click();
  await page
    .locator('input[type="file"]')
    .setInputFiles({ name: "water.pdb", mimeType: "chemical/x-pdb", buffer: Buffer.from(WRAPPED_WATER_PDB) });
  await expect(page.getByText("File validated")).toBeVisible({ timeout: 90_000 });
  // The cut water is one molecule: three waters, not four fragments.
  await expect(
    page.getByRole("table", { name: "What was found" }).getByRole("row", { name: /HOH 3 3 H2O/ }),
  ).toBeVisible();

  const viewer = page.getByTestId("structure-viewer");
  await expect(viewer.locator("canvas")).toBeVisible();
  await expect(page.getByText("Molecules are shown whole, each with its centre in the cell.")).toBeVisible();
  await expect(viewer).toHaveAttribute("data-representation", "sticks");
  await viewer.scrollIntoViewIfNeeded();
  await page.screenshot({ path: artifact("viewer-sticks-element") });

  const representation = page.getByRole("radiogroup", { name: "Representation" });
  const colour = page.getByRole("radiogroup", { name: "Colour by" });
  for (const [label, value] of [
    ["Lines", "lines"],
    ["Ball and stick", "ballAndStick"],
    ["Spacefill", "spacefill"],
  ] as const) {
    await representation.getByText(label, { exact: true }).click();
    await expect(viewer).toHaveAttribute("data-representation", value);
  }
  await colour.getByText("Molecule", { exact: true }).click();
  await expect(viewer).toHaveAttribute("data-colouring", "molecule");
  await page.screenshot({ path: artifact("viewer-spacefill-molecule") });
  await representation.getByText("Ball and stick", { exact: true }).click();
  await colour.getByText("Residue", { exact: true }).click();
  await expect(viewer).toHaveAttribute("data-colouring", "residue");
  await page.getByRole("button", { name: "Reset view" }).click();
  await expect(viewer.locator("canvas")).toBeVisible();

  await page.getByRole("button", { name: "Full screen" }).click();
  await expect.poll(() => page.evaluate(() => document.fullscreenElement !== null)).toBe(true);
  await expect(page.getByRole("button", { name: "Exit full screen" })).toBeVisible();
  const box = await viewer.boundingBox();
  expect(box?.height ?? 0).toBeGreaterThan(420);
  await page.screenshot({ path: artifact("viewer-full-screen") });
  await page.getByRole("button", { name: "Exit full screen" }).click();
  await expect.poll(() => page.evaluate(() => document.fullscreenElement === null)).toBe(true);
  await expect(page.getByRole("button", { name: "Full screen" })).toBeVisible();
});
