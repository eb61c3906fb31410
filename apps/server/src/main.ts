import { type Config, ConfigError, loadConfig } from "./platform/config";

/** Starts the server: `node --import tsx apps/server/src/main.ts` (what `make start` runs). */
async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }

  // Imported only once the settings are valid, so a bad setting prints its one line and nothing
  // else (loading the app loads libraries that may print warnings of their own).
  const { buildApp } = await import("./app");
  const app = await buildApp({ config });

  // Graceful shutdown: stop accepting, finish requests in flight, close sockets and the database.
  // A second signal forces the exit.
  let closing = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (closing) process.exit(1);
    closing = true;
    app.log.info({ signal }, "shutting down");
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        app.log.error({ err }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);

  await app.listen({ port: config.port, host: config.host });
  app.log.info(`PolyForge is serving ${config.publicUrl}`);
}

main().catch((err: unknown) => {
  process.stderr.write(`PolyForge failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
