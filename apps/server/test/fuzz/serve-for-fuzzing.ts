import { writeFileSync } from "node:fs";
import { startTestApp } from "../support/start-app";
import { userClaims } from "../support/tokens";

/**
 * The real app on a fresh PGlite database, listening on a port, for a schema-driven fuzzer
 * (schemathesis.test.ts). Tokens come from the test issuer the app trusts (the embedded provider's
 * sign-in is a browser flow). Writes `{ url, token, otherToken }` to the file named by argv[2].
 */
const port = Number(process.argv[3] ?? 18862);
// The fuzzer writes far faster than a person: the per-user write limits would answer it 429 throughout.
const testApp = await startTestApp(
  "pglite",
  { LOG_LEVEL: "warn", POLYFORGE_WRITES_PER_MINUTE: "1000000", POLYFORGE_JOB_STARTS_PER_MINUTE: "1000000" },
  { runJobs: false },
);
await testApp.app.listen({ port, host: "127.0.0.1" });
// The OpenAPI document is built on its first request: build it now, before the fuzzer's timeout runs.
await testApp.app.inject({ method: "GET", url: "/api/docs/openapi.json" });
const token = await testApp.issuer.sign(userClaims(), { expiresIn: "2h" });
const otherToken = await testApp.issuer.sign(userClaims(), { expiresIn: "2h" });
writeFileSync(process.argv[2]!, JSON.stringify({ url: `http://127.0.0.1:${port}`, token, otherToken }));
process.on("SIGTERM", () => void testApp.close().then(() => process.exit(0)));
