#!/usr/bin/env node
// The `polyforge` command: `polyforge serve` (the default) starts the server, as `make start` does.
import { register } from "tsx/esm/api";

const USAGE = `Usage: polyforge [command]

Commands:
  serve    start the API server and web app (default); settings come from the environment
  worker   run processing jobs on this machine against the servers' PostgreSQL (DATABASE_URL) and file store
  help     show this help`;

const command = process.argv[2] ?? "serve";

switch (command) {
  case "serve":
    register();
    await import("../src/main.ts");
    break;
  case "worker":
    register();
    await import("../src/worker.ts");
    break;
  case "help":
  case "--help":
  case "-h":
    process.stdout.write(`${USAGE}\n`);
    break;
  default:
    process.stderr.write(`polyforge: unknown command '${command}'\n${USAGE}\n`);
    process.exit(2);
}
