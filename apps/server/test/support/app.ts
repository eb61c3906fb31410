import { afterAll, beforeAll } from "vitest";
import type { AppOptions } from "../../src/app";
import type { DatabaseKind } from "./database";
import { startTestApp, type TestApp } from "./start-app";

export { startTestApp, type TestApp } from "./start-app";

/** `startTestApp` for the whole suite: started before its first test, closed after its last. The
 * answer reads the started app (use it inside tests and hooks). */
export function useTestApp(
  kind: DatabaseKind,
  env: NodeJS.ProcessEnv = {},
  options: Pick<AppOptions, "runJobs"> = {},
): TestApp {
  let started: TestApp | undefined;
  beforeAll(async () => {
    started = await startTestApp(kind, env, options);
  });
  afterAll(() => started?.close());
  const current = (): TestApp => {
    if (!started) throw new Error("the suite's app is not started yet");
    return started;
  };
  return {
    get app() {
      return current().app;
    },
    get issuer() {
      return current().issuer;
    },
    get config() {
      return current().config;
    },
    get databaseTarget() {
      return current().databaseTarget;
    },
    close: () => current().close(),
  };
}
