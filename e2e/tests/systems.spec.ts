import { expect, type Page, test } from "@playwright/test";
import { artifact, signUp } from "../support/auth";
import { buildTinySystem } from "../support/polymerBuilder";

const SYSTEM_NAME = "E2E PE melt";

type Pushed = { message_type?: string; status?: string }[];

/** The system's row in the catalogue. */
function systemRow(page: Page) {
  return page.getByRole("row").filter({ hasText: SYSTEM_NAME });
}

/** The dashboard's systems card. */
function summaryCard(page: Page) {
  return page.locator(".mantine-Card-root").filter({ hasText: "Systems summary" });
}

/** Every notification the server pushes passes through here on its way to the page: the status
 * must reach the page through the socket (lists poll only while it is closed), and the test
 * fails if it does not, even though polling would move the tag on too. */
async function recordPushed(page: Page): Promise<Pushed> {
  const pushed: Pushed = [];
  await page.routeWebSocket(/\/api\/v2\/notifications\//, (socket) => {
    const server = socket.connectToServer();
    server.onMessage((message) => {
      pushed.push(JSON.parse(String(message)));
      socket.send(message);
    });
    socket.onMessage((message) => server.send(message));
  });
  return pushed;
}

/** Start from the catalogue: the tag moves on by itself (notifications socket), no reload. */
async function processFromCatalogue(page: Page, pushed: Pushed) {
  await expect(page.getByRole("heading", { name: "Molecular systems" })).toBeVisible();
  const row = systemRow(page);
  await expect(row.getByText("Not submitted")).toBeVisible();
  await expect(page.getByText("1 - 1")).toBeVisible();
  await expect(page.getByText("1 of 1 pages")).toBeVisible();

  // Start: the tag moves on by itself (notifications socket), no reload.
  await row.getByRole("button", { name: `Start processing ${SYSTEM_NAME}` }).click();
  await expect(page.getByText("Processing started")).toBeVisible();
  await expect(row.getByText(/^(Waiting for resources|Processing|Running)/)).toBeVisible();
  await expect(row.getByText(/^Running \d+%$/)).toBeVisible({ timeout: 180_000 });
  await page.screenshot({ path: artifact("systems-catalogue-running"), fullPage: true });
  await expect(row.getByText("Completed")).toBeVisible({ timeout: 240_000 });
  const executionStatuses = pushed
    .filter((message) => message.message_type === "system_execution_status_updated")
    .map((message) => message.status);
  expect(executionStatuses).toContain("running");
  expect(executionStatuses).toContain("completed");
  await page.screenshot({ path: artifact("systems-catalogue-completed"), fullPage: true });
}

/** Download the results bundle. */
async function downloadResults(page: Page) {
  const row = systemRow(page);
  const downloadPromise = page.waitForEvent("download");
  await row.getByRole("button", { name: `Download the files of ${SYSTEM_NAME}` }).click();
  const download = await downloadPromise;
  expect(download.suggestedFilename()).toBe("e2e_pe_melt_files.zip");
  await expect(page.getByText("Files downloaded")).toBeVisible();
}

/** The dashboard lists it with its status. */
async function expectOnDashboard(page: Page) {
  await page.getByRole("navigation").getByRole("link", { name: "Home" }).click();
  const systemsCard = summaryCard(page);
  await expect(systemsCard.getByText(SYSTEM_NAME)).toBeVisible();
  await expect(systemsCard.getByText("Completed")).toBeVisible();
}

/** Detail (opened from the dashboard): summary, both structures in the 3D viewer, and the energy plots. */
async function expectDetail(page: Page) {
  const systemsCard = summaryCard(page);
  await systemsCard.getByRole("link", { name: SYSTEM_NAME }).click();
  await expect(page.getByRole("heading", { name: SYSTEM_NAME })).toBeVisible();
  await expect(page.getByText("Simulation parameters")).toBeVisible();
  await expect(page.getByText("Segment PE4 × 1")).toBeVisible();
  const viewers = page.getByTestId("structure-viewer");
  await expect(viewers).toHaveCount(2);
  await expect(viewers.first().locator("canvas")).toBeVisible();
  await expect(viewers.nth(1).locator("canvas")).toBeVisible();
  await expect(page.getByText("650 atoms").first()).toBeVisible();
  // Energy, temperature, density and the box side over time.
  await expect(page.getByTestId("energy-plot")).toHaveCount(4);
  await expect(page.getByTestId("energy-plot").first().locator("canvas")).toBeVisible();
  // Measured properties from report.json beside polyethylene's literature values, and the C(m) plot.
  const properties = page.getByTestId("measured-properties");
  await expect(properties.getByText("C∞ (fit of C(m))")).toBeVisible();
  await expect(properties.getByText(/\(polyethylene\)/)).toBeVisible();
  await expect(page.getByTestId("internal-distance-plot").locator("canvas")).toBeVisible();
  await page.screenshot({ path: artifact("systems-detail"), fullPage: true });
}

/** Back to the catalogue; archive it, after confirming: gone from the list. */
async function deleteFromCatalogue(page: Page) {
  await page.getByRole("link", { name: "← Back to molecular systems" }).click();
  await expect(page.getByRole("heading", { name: "Molecular systems" })).toBeVisible();

  // Archive it, after confirming: gone from the list.
  const row = systemRow(page);
  await row.getByRole("button", { name: `Delete ${SYSTEM_NAME}` }).click();
  const confirm = page.getByRole("dialog", { name: "Delete system" });
  await expect(confirm.getByText(/Its files and results are kept/)).toBeVisible();
  await confirm.getByRole("button", { name: "Delete system" }).click();
  await expect(page.getByText("System deleted")).toBeVisible();
  await expect(page.getByText("No items found")).toBeVisible();
}

test("a user processes a system from the catalogue, watches its status, views and downloads the results", async ({
  page,
}) => {
  test.setTimeout(300_000);
  const pushed = await recordPushed(page);
  await signUp(page);
  await buildTinySystem(page, SYSTEM_NAME);

  await test.step("process it from the catalogue", () => processFromCatalogue(page, pushed));
  await test.step("download the results", () => downloadResults(page));
  await test.step("on the dashboard", () => expectOnDashboard(page));
  await test.step("the detail page", () => expectDetail(page));
  await test.step("delete it", () => deleteFromCatalogue(page));
});

test("the catalogue filters by type, falls back to molecule and searches by name", async ({ page }) => {
  await signUp(page);
  await page.goto("/systems?type=bogus");
  await expect(page.getByRole("heading", { name: "Molecular systems" })).toBeVisible();
  await expect(page).toHaveURL(/type=molecule/);
  await expect(page.getByText("No items found")).toBeVisible();
  await expect(page.getByText("0 - 0")).toBeVisible();
  await page.getByText("Mixed", { exact: true }).click();
  await expect(page).toHaveURL(/type=mixed/);
  await page.getByPlaceholder("Search molecular systems by name...").fill("nothing like this");
  await expect(page.getByText("No items found")).toBeVisible();
  await page.getByText("System", { exact: true }).click();
  await expect(page.getByPlaceholder("Search molecular systems by name...")).toHaveValue("");
  await page.screenshot({ path: artifact("systems-catalogue-empty"), fullPage: true });
});
