/**
 * Load on the two big lists (issue 23 figures): GET /api/v2/systems and /api/v2/building_blocks at
 * concurrency 10 and 50 for a bounded time each, with ROWS rows per user, on loopback against the
 * real app (PGlite, or PostgreSQL when TEST_DATABASE_URL is set). Prints req/s, p50, p99 and errors
 * as one JSON line per run.
 *
 *   node --import tsx bench/hardening/list-load.ts [seconds=30] [rows=2000]
 */

import { startTestApp } from "../../apps/server/test/support/start-app";
import { userClaims } from "../../apps/server/test/support/tokens";
import { seedListRows } from "./seed";

const seconds = Number(process.argv[2] ?? 30);
const rows = Number(process.argv[3] ?? 2000);
const kind = process.env.TEST_DATABASE_URL ? "postgres" : "pglite";
// Seconds of load at the start of each run whose requests are not counted (0: all are counted).
const warmup = Number(process.env.WARMUP ?? 0);
const paths = (process.env.PATHS ?? "/api/v2/systems?page_size=10,/api/v2/building_blocks?page_size=10").split(",");
const concurrencies = (process.env.CONCURRENCY ?? "10,50").split(",").map(Number);

const testApp = await startTestApp(kind, { LOG_LEVEL: "warn" }, { runJobs: false });
await testApp.app.listen({ port: 0, host: "127.0.0.1" });
const address = testApp.app.server.address();
const base = typeof address === "object" && address ? `http://127.0.0.1:${address.port}` : "";
const claims = userClaims();
const token = await testApp.issuer.sign(claims, { expiresIn: "2h" });
const headers = { authorization: `Bearer ${token}` };

// The user's row exists after a first call; then ROWS blocks and systems of theirs.
await fetch(`${base}/api/v2/users/account`, { headers });
await seedListRows(testApp, claims.sub, rows);

async function run(path: string, concurrency: number) {
  const latencies: number[] = [];
  let errors = 0;
  const counted = performance.now() + warmup * 1000;
  const deadline = counted + seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const started = performance.now();
      try {
        const response = await fetch(`${base}${path}`, { headers });
        await response.arrayBuffer();
        if (response.status !== 200) errors += 1;
      } catch {
        errors += 1;
      }
      if (started >= counted) latencies.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - counted) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    database: kind,
    path,
    concurrency,
    rows,
    warmup_s: warmup,
    seconds: Number(elapsed.toFixed(1)),
    requests: latencies.length,
    req_per_s: Number((latencies.length / elapsed).toFixed(1)),
    p50_ms: Number(at(0.5).toFixed(1)),
    p99_ms: Number(at(0.99).toFixed(1)),
    errors,
  };
}

for (const path of paths) {
  for (const concurrency of concurrencies) console.log(JSON.stringify(await run(path, concurrency)));
}
await testApp.close();
