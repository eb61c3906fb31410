import { randomUUID } from "node:crypto";
import { expect, type Page } from "@playwright/test";

export interface TestUser {
  email: string;
  password: string;
  firstName: string;
  lastName: string;
}

export function newTestUser(): TestUser {
  const id = randomUUID().slice(0, 8);
  return { email: `e2e-${id}@example.org`, password: "Strong-Passw0rd!", firstName: "Ada", lastName: `Tester${id}` };
}

/** Opens the app, follows the redirect to the embedded provider's sign-in page, signs up there
 * and lands back on the dashboard. */
export async function signUp(page: Page, user: TestUser = newTestUser()): Promise<TestUser> {
  // Only until the response starts: an app already in the cache redirects to the sign-in page before
  // its load event, which would interrupt a goto waiting for "load".
  await page.goto("/", { waitUntil: "commit" });
  await expect(page.getByRole("button", { name: "Sign in" })).toBeVisible();
  await page.getByRole("link", { name: /sign up/i }).click();
  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("First name").fill(user.firstName);
  await page.getByLabel("Last name").fill(user.lastName);
  await page.getByLabel("Organization").selectOption("other");
  await page.getByLabel("Password", { exact: true }).fill(user.password);
  await page.getByLabel("Confirm password").fill(user.password);
  await page.getByRole("button", { name: /sign up/i }).click();
  await expect(page.getByRole("heading", { name: "My dashboard" })).toBeVisible();
  return user;
}

export async function signIn(page: Page, user: Pick<TestUser, "email" | "password">): Promise<void> {
  await page.goto("/", { waitUntil: "commit" });
  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("Password").fill(user.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "My dashboard" })).toBeVisible();
}

export function artifact(name: string): string {
  return `artifacts/${name}.png`;
}
