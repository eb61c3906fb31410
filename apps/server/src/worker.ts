import pino from "pino";
import { createSystemProcessing } from "./jobs";
import { type Config, ConfigError, loadConfig } from "./platform/config";
import { databaseTarget, openDatabase } from "./platform/db/database";

/**
 * `polyforge worker`: runs processing jobs on this machine against the shared PostgreSQL and file
 * store of the API servers (ARCHITECTURE §1). Status changes reach the users through NOTIFY.
 */
async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
    if (!config.databaseUrl) {
      throw new ConfigError("polyforge worker needs DATABASE_URL: the embedded database belongs to one server");
    }
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
  const logger = pino({ level: config.logLevel });
  const database = await openDatabase(databaseTarget(config), logger);
  const { runner, structures, potentials } = createSystemProcessing(config, database.db, logger);
  runner.start();
  structures.start();
  potentials.start();
  logger.info({ runnerId: runner.runnerId, maxJobs: config.maxJobs }, "PolyForge worker is waiting for jobs");

  // On SIGTERM the running jobs are handed back to the queue for another runner.
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info({ signal }, "worker stopping");
    Promise.all([runner.stop(), structures.stop(), potentials.stop()])
      .then(() => database.close())
      .then(
        () => process.exit(0),
        (err: unknown) => {
          logger.error({ err }, "worker shutdown failed");
          process.exit(1);
        },
      );
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
}

main().catch((err: unknown) => {
  process.stderr.write(`PolyForge worker failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
