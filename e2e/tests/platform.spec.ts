import { expect, test } from "@playwright/test";
import { artifact, signUp } from "../support/auth";

test("a new user signs up, finds their way around, sends feedback and logs out", async ({ page }) => {
  const user = await signUp(page);

  await expect(page.getByText("Summary of your building blocks, molecules and systems.")).toBeVisible();
  await expect(page.getByRole("banner").getByText(user.firstName)).toBeVisible();
  await page.screenshot({ path: artifact("platform-dashboard"), fullPage: true });

  // The sidebar follows SPEC §2's order; the flag-gated entries are on by default.
  const nav = page.getByRole("navigation");
  for (const entry of ["Home", "Modeling Compute", "Building Blocks", "Molecular Systems", "Polymer Builder"]) {
    await expect(nav.getByRole("link", { name: entry })).toBeVisible();
  }
  await expect(nav.getByRole("link", { name: /documentation/i })).toHaveAttribute("target", "_blank");

  // Header menu: Account and Log out.
  await page.getByRole("button", { name: /user menu/i }).click();
  await expect(page.getByRole("menuitem", { name: "Account" })).toBeVisible();
  await expect(page.getByRole("menuitem", { name: "Log out" })).toBeVisible();
  await page.screenshot({ path: artifact("platform-header-menu") });
  await page.getByRole("menuitem", { name: "Account" }).click();
  await expect(page).toHaveURL(/\/account$/);
  await expect(page.getByLabel("Email")).toHaveValue(user.email);

  // An unknown path.
  await page.goto("/no/such/page");
  await expect(page.getByText("404: Page not found")).toBeVisible();
  await page.screenshot({ path: artifact("platform-404") });
  await page.getByRole("link", { name: "Go to Home Page" }).click();
  await expect(page.getByRole("heading", { name: "My dashboard" })).toBeVisible();

  // Feedback is stored by the server; the modal says so.
  await page.getByRole("button", { name: /feedback/i }).click();
  const dialog = page.getByRole("dialog", { name: "Send us your feedback" });
  await expect(dialog).toBeVisible();
  await dialog.getByRole("button", { name: "Submit" }).click();
  await expect(dialog.getByText("Required field")).toBeVisible();
  await dialog.getByLabel("Title").fill("Lovely builder");
  await dialog.getByLabel("Describe your experience").fill("Building PE-50 took one click.");
  await page.screenshot({ path: artifact("platform-feedback") });
  await dialog.getByRole("button", { name: "Submit" }).click();
  await expect(page.getByText("Thank you! Your feedback has been submitted successfully.")).toBeVisible();
  await expect(dialog).toBeHidden();

  // Log out: back at the sign-in page, and the app does not open without signing in again.
  await page.getByRole("button", { name: /user menu/i }).click();
  await page.getByRole("menuitem", { name: "Log out" }).click();
  await expect(page.getByRole("button", { name: "Sign in" })).toBeVisible();
  await page.screenshot({ path: artifact("platform-logged-out") });
});
