import type { ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { artifact, signUp } from "../support/auth";
import { buildTinySystem } from "../support/polymerBuilder";
import { serverEnv, startServer, stopServer } from "../support/server";

/**
 * Issue 23: a long run shows its simulated time and the time left while dynamics run, and when its
 * server is killed (kill -9) and started again the run is taken back and the user is told so. The
 * server is this spec's own, on E2E_TAKEBACK_PORT, so that it can be killed: same built web app,
 * a throwaway data directory kept across the restart.
 */
const port = Number(process.env.E2E_TAKEBACK_PORT ?? 18768);
const baseURL = `http://localhost:${port}`;
// Made when the spec runs (not when Playwright loads the file to list tests), kept across the restart.
let dataDir = "";
const SYSTEM_NAME = "E2E long melt";

test.use({ baseURL });

let server: ChildProcess | undefined;

const startTakebackServer = () => startServer(serverEnv(port, dataDir, { POLYFORGE_SIGN_UPS_PER_ADDRESS: "1000" }));

test.beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "polyforge-e2e-takeback-"));
  server = await startTakebackServer();
});

test.afterAll(async () => {
  await stopServer(server, "SIGTERM");
});

test("a long run shows its simulated time and time left, and a kill -9 of its server is told, not hidden", async ({
  page,
}) => {
  test.setTimeout(600_000);
  await signUp(page);
  // The tiny melt of the other specs, with dynamics long enough to outlast this test (6 ns).
  await buildTinySystem(page, SYSTEM_NAME, async () => {
    await page.getByRole("button", { name: "Previous" }).click();
    await page.getByLabel("Dynamics steps").fill("3000000");
    await page.getByRole("button", { name: "Save simulation protocol" }).click();
    await expect(page.getByRole("complementary", { name: "Saved simulation protocol" })).toBeVisible();
    await page.getByRole("button", { name: "Next" }).click();
    await page.getByLabel("System name").fill(SYSTEM_NAME);
  });

  const row = page.getByRole("row").filter({ hasText: SYSTEM_NAME });
  await row.getByRole("button", { name: `Start processing ${SYSTEM_NAME}` }).click();
  await expect(page.getByText("Processing started")).toBeVisible();
  await row.getByRole("link", { name: SYSTEM_NAME }).click();
  await expect(page.getByRole("heading", { name: SYSTEM_NAME })).toBeVisible();

  // Dynamics: the simulated time of the 6 ns and the time left, refreshed as the run goes on.
  const dynamics = page.getByTestId("execution-dynamics-progress");
  await expect(dynamics).toContainText(/^Simulated [\d.,]+ of 6\.000 ns · about .+ left$/, { timeout: 300_000 });
  const first = await dynamics.textContent();
  await expect(dynamics).not.toHaveText(first ?? "", { timeout: 30_000 });
  await page.screenshot({ path: artifact("dynamics-progress"), fullPage: true });

  // The server dies without a word; another starts on the same data and takes the run back.
  await stopServer(server, "SIGKILL");
  server = await startTakebackServer();
  const notice = page.getByTestId("execution-notice");
  await expect(notice).toContainText("What happened to this run", { timeout: 60_000 });
  await expect(notice).toContainText(
    "The server running this stopped; processing was taken back and started again from the beginning (attempt 2 of 3).",
  );
  // The run starts again from its build; on a quick machine it is back in dynamics within seconds,
  // so whether the dynamics line shows at this moment depends on the machine, and is not checked.
  await page.screenshot({ path: artifact("takeback-notice"), fullPage: true });
});
