/**
 * The real server for bench/hardening/attacks.ts, as `make start` runs it (settings from the
 * environment: PORT, POLYFORGE_DATA_DIR, PUBLIC_URL…), with the embedded sign-in; or, when
 * BENCH_JWKS_FILE names a public key set (issuer BENCH_ISSUER), trusting the benchmark's tokens so
 * that it can begin uploads without a browser. Jobs stay queued.
 */
import { readFileSync } from "node:fs";
import { buildApp } from "../../apps/server/src/app";
import { loadConfig } from "../../apps/server/src/platform/config";

const config = loadConfig();
const jwks = process.env.BENCH_JWKS_FILE;
const app = await buildApp({
  config,
  ...(jwks
    ? { issuerKeys: { issuer: process.env.BENCH_ISSUER ?? "", publicJwks: JSON.parse(readFileSync(jwks, "utf8")) } }
    : {}),
  runJobs: false,
});
await app.listen({ port: config.port, host: "127.0.0.1" });
process.stdout.write("listening\n");
const stop = () => {
  app.close().then(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
