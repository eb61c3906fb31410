import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { defineConfig } from "@playwright/test";
import { serverEnv } from "./support/server";

// The real product: the server `make start` runs (with the built web app), on its own port and a
// throwaway data directory, signed into through the real sign-in page in Debian's Chromium.
const port = Number(process.env.E2E_PORT ?? 18765);
const baseURL = `http://localhost:${port}`;
const dataDir = process.env.E2E_DATA_DIR ?? mkdtempSync(join(tmpdir(), "polyforge-e2e-"));
const root = resolve(import.meta.dirname, "..");

export default defineConfig({
  testDir: "./tests",
  outputDir: "./artifacts/test-results",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 120_000,
  expect: { timeout: 15_000 },
  reporter: [["list"]],
  use: {
    baseURL,
    screenshot: "only-on-failure",
    trace: "retain-on-failure",
    acceptDownloads: true,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    },
  },
  webServer: {
    command: "node --import tsx apps/server/src/main.ts",
    cwd: root,
    url: `${baseURL}/api/health`,
    timeout: 180_000,
    reuseExistingServer: false,
    stdout: "pipe",
    stderr: "pipe",
    // Every spec signs up its own users from 127.0.0.1, faster than the default sign-up throttle.
    env: serverEnv(port, dataDir, { POLYFORGE_SIGN_UPS_PER_ADDRESS: "1000" }),
  },
});
