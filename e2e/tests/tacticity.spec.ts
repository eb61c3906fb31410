import { expect, test } from "@playwright/test";
import { artifact, signUp } from "../support/auth";

/** Issue 22: the polymer form offers a tacticity for styrene (a prochiral backbone centre the SMILES
 * leaves open), not for ethylene, and the added polymer names the choice. */
test("a polymer of styrene takes a tacticity and a meso fraction; one of ethylene does not", async ({ page }) => {
  await signUp(page);
  await page.getByRole("navigation").getByRole("link", { name: "Polymer Builder" }).click();
  const added = page.getByTestId("added-blocks");
  for (const name of ["Ethylene", "Styrene"]) {
    await page.getByRole("button", { name: `Add ${name}`, exact: true }).click();
  }
  await expect(added.getByLabel("Added")).toHaveCount(2);
  await page.getByRole("button", { name: "Next" }).click();

  const blockForm = page.getByRole("region", { name: "Linear block" });
  const segments: Array<[string, string]> = [
    ["PE10", "Ethylene"],
    ["PS10", "Styrene"],
  ];
  for (const [segment, block] of segments) {
    await blockForm.getByLabel("Segment name").fill(segment);
    await blockForm.getByRole("button", { name: `Add ${block}`, exact: true }).click();
    await blockForm.getByLabel(`Occurrence ${block}`).fill("10");
    await blockForm.getByRole("button", { name: "Add segment" }).click();
    await expect(page.getByText("Segment created").first()).toBeVisible();
  }
  await page.getByRole("button", { name: "Next" }).click();

  await page.getByLabel("Polymer name").fill("PS");
  await page.getByRole("textbox", { name: "Force field" }).click();
  await page.getByRole("option", { name: "gaff2", exact: true }).click();
  await page.getByRole("button", { name: "Add PE10" }).click();
  await expect(page.getByRole("textbox", { name: "Occurrence PE10" })).toBeVisible();
  await expect(page.getByTestId("tacticity")).toHaveCount(0);
  await page.getByRole("button", { name: "Remove PE10" }).click();
  await page.getByRole("button", { name: "Add PS10" }).click();
  const tacticity = page.getByTestId("tacticity");
  await expect(tacticity.getByText("How the prochiral backbone centres of Styrene are set")).toBeVisible();
  await expect(tacticity.getByLabel("Meso fraction")).toHaveValue("0.5");
  await tacticity.getByLabel("Meso fraction").fill("1.5");
  await expect(tacticity.getByText("Meso fraction must be between 0 and 1")).toBeVisible();
  await tacticity.getByLabel("Meso fraction").fill("0.7");
  await expect(tacticity.getByText("Meso fraction must be between 0 and 1")).toHaveCount(0);
  await page.screenshot({ path: artifact("polymer-builder-tacticity"), fullPage: true });
  await page.getByRole("button", { name: "Add polymer" }).click();
  await expect(page.getByText("Polymer created")).toBeVisible();
  await expect(page.getByTestId("added-polymers").getByText("(gaff2, atactic, meso fraction 0.7)")).toBeVisible();
});
