/**
 * CPU time per request of the two big lists, in process (Fastify inject, PGlite in the same
 * process): what the app itself spends on a GET of a page of 10 out of ROWS, user + system CPU, so
 * that a machine loaded by others (which stretches wall times) moves it little. One JSON line per
 * list. Run in two trees by compare.sh (MODE=cpu) for a before/after.
 *
 *   node --import tsx bench/hardening/cpu-per-request.ts [requests=200] [rows=2000]
 */

import { startTestApp } from "../../apps/server/test/support/start-app";
import { userClaims } from "../../apps/server/test/support/tokens";
import { seedListRows } from "./seed";

const requests = Number(process.argv[2] ?? 200);
const rows = Number(process.argv[3] ?? 2000);

const testApp = await startTestApp("pglite", { LOG_LEVEL: "warn" }, { runJobs: false });
const claims = userClaims();
const headers = { authorization: `Bearer ${await testApp.issuer.sign(claims, { expiresIn: "2h" })}` };
await testApp.app.inject({ method: "GET", url: "/api/v2/users/account", headers });
await seedListRows(testApp, claims.sub, rows);
for (const path of ["/api/v2/systems?page_size=10", "/api/v2/building_blocks?page_size=10"]) {
  for (let i = 0; i < 20; i++) await testApp.app.inject({ method: "GET", url: path, headers }); // warm up
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  for (let i = 0; i < requests; i++) {
    const response = await testApp.app.inject({ method: "GET", url: path, headers });
    if (response.statusCode !== 200) throw new Error(`${path} answered ${response.statusCode}`);
  }
  const cpu = process.cpuUsage(cpu0);
  console.log(
    JSON.stringify({
      database: "pglite",
      path,
      requests,
      rows,
      cpu_ms_per_request: Number(((cpu.user + cpu.system) / 1000 / requests).toFixed(2)),
      wall_ms_per_request: Number(((performance.now() - wall0) / requests).toFixed(2)),
    }),
  );
}
await testApp.close();
