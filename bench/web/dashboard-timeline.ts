/**
 * The dashboard's first screen as a browser loads it (issue 27): a signed-in user opens `/` with an
 * empty HTTP cache (a fresh browser context holding only the sign-in provider's session cookie), in
 * Debian's headless Chromium against a running server. Prints, per run, when each request started
 * and ended (ms from the page's first request), its compressed size and Content-Encoding, and the
 * time until the three dashboard cards' API calls had all answered; then one JSON summary line per
 * run and the median over the runs.
 *
 *   node --import tsx bench/web/dashboard-timeline.ts <base-url> [runs=5] [label]
 *
 * The server is started separately, e.g. on the build under test:
 *   PORT=8150 PUBLIC_URL=http://localhost:8150 WEB_DIST_DIR=/tmp/x-dist POLYFORGE_DATA_DIR=/tmp/x-data \
 *     POLYFORGE_SIGN_UPS_PER_ADDRESS=1000 node --import tsx apps/server/src/main.ts
 */

import { randomUUID } from "node:crypto";
import { loadavg } from "node:os";
import { type BrowserContext, chromium, expect, type Request } from "@playwright/test";

const base = process.argv[2] ?? "http://localhost:8150";
const runs = Number(process.argv[3] ?? 5);
const label = process.argv[4] ?? "";
const verbose = Boolean(process.env.VERBOSE);

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-quic"],
});

// A user signed up through the embedded provider; its session cookie is all the runs start with.
const signUpContext = await browser.newContext({ baseURL: base });
const signUpPage = await signUpContext.newPage();
await signUpPage.goto("/", { waitUntil: "commit" });
await signUpPage.getByRole("link", { name: /sign up/i }).click();
await signUpPage.getByLabel("Email").fill(`bench-${randomUUID().slice(0, 8)}@example.org`);
await signUpPage.getByLabel("First name").fill("Bench");
await signUpPage.getByLabel("Last name").fill("Timeline");
await signUpPage.getByLabel("Organization").selectOption("other");
await signUpPage.getByLabel("Password", { exact: true }).fill("Strong-Passw0rd!");
await signUpPage.getByLabel("Confirm password").fill("Strong-Passw0rd!");
await signUpPage.getByRole("button", { name: /sign up/i }).click();
await expect(signUpPage.getByRole("heading", { name: "My dashboard" })).toBeVisible({ timeout: 60_000 });
const { cookies } = await signUpContext.storageState();
await signUpContext.close();

interface Row {
  path: string;
  start: number;
  end: number;
  bytes: number;
  encoding: string;
}

/** The API calls behind the three cards: blocks, molecules and systems. */
const isCardCall = (path: string) => /^\/api\/v2\/(building_blocks|systems)\?/.test(path);

async function measure(context: BrowserContext) {
  const requests: Request[] = [];
  context.on("requestfinished", (request) => requests.push(request));
  const page = await context.newPage();
  await page.goto("/", { waitUntil: "commit" });
  await expect(page.getByRole("heading", { name: "My dashboard" })).toBeVisible({ timeout: 60_000 });
  // The three cards' lists, answered (the cards show their rows).
  await expect
    .poll(() => requests.filter((r) => isCardCall(new URL(r.url()).pathname + new URL(r.url()).search)).length, {
      timeout: 60_000,
    })
    .toBeGreaterThanOrEqual(3);
  await page.waitForLoadState("networkidle");
  const rows: Row[] = [];
  for (const request of requests) {
    const timing = request.timing();
    const response = await request.response();
    const sizes = await request.sizes();
    const url = new URL(request.url());
    rows.push({
      path: url.origin === new URL(base).origin ? url.pathname + url.search : url.href,
      start: timing.startTime,
      end: timing.startTime + Math.max(timing.responseEnd, 0),
      bytes: sizes.responseBodySize + sizes.responseHeadersSize,
      encoding: (await response?.headerValue("content-encoding")) ?? "",
    });
  }
  const origin = Math.min(...rows.map((row) => row.start));
  for (const row of rows) {
    row.start -= origin;
    row.end -= origin;
  }
  rows.sort((a, b) => a.start - b.start);
  return rows;
}

const summaries = [];
for (let run = 1; run <= runs; run++) {
  const context = await browser.newContext({ baseURL: base });
  await context.addCookies(cookies);
  const rows = await measure(context);
  await context.close();
  const cards = rows.filter((row) => isCardCall(row.path));
  const locales = rows.filter((row) => row.path.startsWith("/locales/"));
  const summary = {
    label,
    run,
    requests: rows.length,
    kb_transferred: Number((rows.reduce((sum, row) => sum + row.bytes, 0) / 1024).toFixed(1)),
    kb_uncompressed_responses: Number(
      (rows.filter((row) => !row.encoding).reduce((sum, row) => sum + row.bytes, 0) / 1024).toFixed(1),
    ),
    locale_files: locales.length,
    first_card_call_ms: Math.round(Math.min(...cards.map((row) => row.start))),
    cards_answered_ms: Math.round(Math.max(...cards.map((row) => row.end))),
    // After the sign-in's last step (the token) and after the app's script arrived: how long the
    // app itself kept the cards' calls waiting.
    token_to_cards_ms: Math.round(
      Math.min(...cards.map((row) => row.start)) -
        Math.max(...rows.filter((row) => row.path.includes("/token")).map((row) => row.end)),
    ),
    script_to_cards_ms: Math.round(
      Math.min(...cards.map((row) => row.start)) -
        Math.max(...rows.filter((row) => /^\/assets\/index-.*\.js$/.test(row.path)).map((row) => row.end)),
    ),
    card_calls_spread_ms: Math.round(
      Math.max(...cards.map((row) => row.start)) - Math.min(...cards.map((row) => row.start)),
    ),
    load_1min: Number(loadavg()[0]?.toFixed(1)),
  };
  summaries.push(summary);
  if (verbose || run === 1) {
    for (const row of rows) {
      console.log(
        `  ${row.start.toFixed(0).padStart(6)} → ${row.end.toFixed(0).padStart(6)} ms ${String(row.bytes).padStart(8)} B ${row.encoding.padEnd(3)} ${row.path.slice(0, 110)}`,
      );
    }
  }
  console.log(JSON.stringify(summary));
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
console.log(
  JSON.stringify({
    label,
    runs,
    median_cards_answered_ms: median(summaries.map((s) => s.cards_answered_ms)),
    median_first_card_call_ms: median(summaries.map((s) => s.first_card_call_ms)),
    median_token_to_cards_ms: median(summaries.map((s) => s.token_to_cards_ms)),
    median_script_to_cards_ms: median(summaries.map((s) => s.script_to_cards_ms)),
    median_kb_transferred: median(summaries.map((s) => s.kb_transferred)),
    median_requests: median(summaries.map((s) => s.requests)),
  }),
);
await browser.close();
