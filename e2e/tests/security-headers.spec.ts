import { expect, test } from "@playwright/test";
import { signUp } from "../support/auth";

/** Issue 23 finding 7: the app works under its content security policy. Every violation the page
 * reports fails the test; the structure renderer (RDKit's WebAssembly module) and the API docs load. */
test("the app, its SMILES renderer and the API docs run under the content security policy", async ({ page }) => {
  const violations: string[] = [];
  await page.exposeFunction("reportViolation", (text: string) => violations.push(text));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      (window as unknown as { reportViolation(text: string): void }).reportViolation(
        `${event.violatedDirective} ${event.blockedURI} (${event.sourceFile}:${event.lineNumber})`,
      );
    });
  });

  const response = await page.goto("/");
  expect(response?.headers()["content-security-policy"]).toContain("frame-ancestors 'self'");
  expect(response?.headers()["x-content-type-options"]).toBe("nosniff");
  await signUp(page);

  await page.goto("/building-blocks/create/linear");
  await page.getByRole("textbox", { name: "Repeating unit", exact: true }).fill("[*:1]CC(c1ccccc1)[*:2]");
  // RDKit draws the unit with its connection points labelled.
  const drawing = page.getByRole("img", { name: "2D structure of [*:1]CC(c1ccccc1)[*:2]" });
  await expect(drawing.locator("svg")).toBeVisible();
  await expect(page.getByText("There was an error loading the renderer")).toHaveCount(0);

  await page.goto("/api/docs");
  await expect(page.getByText("PolyForge API")).toBeVisible();

  expect(violations).toEqual([]);
});
