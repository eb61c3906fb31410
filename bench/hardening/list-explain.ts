/**
 * What one list request costs on PGlite (issue 27): with ROWS rows per user, the queries each list
 * request sends, their EXPLAIN ANALYZE plans, and the mean time of sequential requests.
 *
 *   node --import tsx bench/hardening/list-explain.ts [rows=2000] [requests=100]
 */

import { startTestApp } from "../../apps/server/test/support/start-app";
import { userClaims } from "../../apps/server/test/support/tokens";
import { seedListRows } from "./seed";

const rows = Number(process.argv[2] ?? 2000);
const requests = Number(process.argv[3] ?? 100);
const kind = process.env.TEST_DATABASE_URL ? "postgres" : "pglite";

const testApp = await startTestApp(kind, { LOG_LEVEL: "warn" }, { runJobs: false });
const claims = userClaims();
const token = await testApp.issuer.sign(claims, { expiresIn: "2h" });
const headers = { authorization: `Bearer ${token}` };
await testApp.app.inject({ method: "GET", url: "/api/v2/users/account", headers });
await seedListRows(testApp, claims.sub, rows);
const db = testApp.app.database.db;

// Statements to try before measuring (e.g. candidate indexes), separated by ";".
for (const statement of (process.env.EXTRA_SQL ?? "").split(";").filter((text) => text.trim())) {
  // biome-ignore lint/suspicious/noExplicitAny: the raw client runs the statement
  await (db as any).session.client.query(statement);
}
// Statements to explain with $1 = the user's id, separated by "|" (trying a query's other forms).
for (const statement of (process.env.TRY_SQL ?? "").split("|").filter((text) => text.trim())) {
  // biome-ignore lint/suspicious/noExplicitAny: the raw client runs the statement
  const plan = await (db as any).session.client.query(`EXPLAIN (ANALYZE, COSTS OFF) ${statement}`, [claims.sub]);
  console.log(`  ${statement}`);
  for (const row of plan.rows) console.log(`    ${Object.values(row)[0]}`);
}
// Every statement the app sends, through the session's client.
let inQueries = 0;
const statements: Array<{ text: string; params: unknown }> = [];
// biome-ignore lint/suspicious/noExplicitAny: reaching into drizzle's session to log statements
const session = (db as any).session;
const client = session.client;
const original = { query: client.query.bind(client) };
for (const method of ["query", "execute"] as const) {
  const unwrapped = client[method]?.bind(client);
  if (!unwrapped) continue;
  client[method] = (text: unknown, ...rest: unknown[]) => {
    const sqlText = typeof text === "string" ? text : ((text as { text?: string }).text ?? String(text));
    statements.push({ text: sqlText, params: rest[0] });
    const began = performance.now();
    const result = unwrapped(text, ...rest);
    return Promise.resolve(result).finally(() => {
      inQueries += performance.now() - began;
    });
  };
}

const paths = [
  "/api/v2/systems?page_size=10",
  "/api/v2/systems?page_size=10&type=system",
  "/api/v2/building_blocks?page_size=10",
  "/api/v2/building_blocks?page_size=5&type=linear&type=dendrimer&show_archived=false",
];
for (const path of paths) {
  statements.length = 0;
  const first = await testApp.app.inject({ method: "GET", url: path, headers });
  const sent = [...statements];
  inQueries = 0;
  const began = performance.now();
  for (let i = 0; i < requests; i++) await testApp.app.inject({ method: "GET", url: path, headers });
  const meanMs = (performance.now() - began) / requests;
  console.log(
    JSON.stringify({
      database: kind,
      path,
      status: first.statusCode,
      queries: sent.length,
      mean_ms: Number(meanMs.toFixed(2)),
      in_queries_ms: Number((inQueries / requests).toFixed(2)),
    }),
  );
  if (process.env.EXPLAIN) {
    for (const { text, params } of sent) {
      if (!text.startsWith("select") && !text.startsWith("(")) continue;
      const plan = await original.query(`EXPLAIN (ANALYZE, COSTS OFF) ${text}`, params);
      console.log(`  ${text.slice(0, 160)}`);
      for (const row of plan.rows) console.log(`    ${Object.values(row)[0]}`);
    }
  }
}
await testApp.close();
