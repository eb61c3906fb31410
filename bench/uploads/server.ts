/**
 * The real API server for the upload benchmark, trusting the benchmark's own signing key (so the
 * benchmark needs no sign-in page): everything else is `make start`'s server — same app, same
 * settings from the environment (PORT, POLYFORGE_DATA_DIR, PUBLIC_URL, S3_*), same file stores.
 * BENCH_JWKS_FILE names the public key set, BENCH_ISSUER the issuer; BENCH_RUN_JOBS=0 leaves jobs
 * queued (the upload alone is measured).
 */
import { readFileSync } from "node:fs";
import { buildApp } from "../../apps/server/src/app";
import { loadConfig } from "../../apps/server/src/platform/config";

const config = loadConfig();
const app = await buildApp({
  config,
  issuerKeys: {
    issuer: process.env.BENCH_ISSUER ?? "https://bench.invalid",
    publicJwks: JSON.parse(readFileSync(process.env.BENCH_JWKS_FILE ?? "", "utf8")),
  },
  runJobs: process.env.BENCH_RUN_JOBS !== "0",
});
await app.listen({ port: config.port, host: "127.0.0.1" });
process.stdout.write(`listening ${config.port}\n`);
const stop = () => {
  app.close().then(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
