// The app for tests and for scripts outside vitest (the fuzzer's server): no vitest import here.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type App, type AppOptions, buildApp } from "../../src/app";
import { type Config, loadConfig } from "../../src/platform/config";
import type { DatabaseTarget } from "../../src/platform/db/database";
import { createTestDatabase, type DatabaseKind } from "./database";
import { TestIssuer } from "./tokens";

export interface TestApp {
  app: App;
  issuer: TestIssuer;
  config: Config;
  /** The database the app runs on (e.g. for a `polyforge worker` to share). */
  databaseTarget: DatabaseTarget;
  close(): Promise<void>;
}

/** The real app on a fresh database, trusting a test issuer's keys instead of mounting the
 * embedded identity provider. `env` adds settings; `options` adds app options (e.g. runJobs). */
export async function startTestApp(
  kind: DatabaseKind,
  env: NodeJS.ProcessEnv = {},
  options: Pick<AppOptions, "runJobs"> = {},
): Promise<TestApp> {
  const database = await createTestDatabase(kind);
  const issuer = await TestIssuer.create();
  const config = loadConfig({
    LOG_LEVEL: "silent",
    POLYFORGE_DATA_DIR: mkdtempSync(join(tmpdir(), "polyforge-test-")),
    WEB_DIST_DIR: join(tmpdir(), "polyforge-test-no-web"),
    ...env,
  });
  const app = await buildApp({ config, database: database.target, issuerKeys: issuer.keys(), ...options });
  return {
    app,
    issuer,
    config,
    databaseTarget: database.target,
    close: async () => {
      await app.close();
      await database.drop();
    },
  };
}
