import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSystemProcessing, type SystemProcessing } from "../src/jobs";
import type { Db } from "../src/platform/db/database";
import { applyEngineLine, type ProgressDetail } from "../src/platform/jobs/engine-process";
import type { EngineExecutor, ExecutorOutcome, ExecutorRunOptions } from "../src/platform/jobs/executor";
import { startTestApp, type TestApp } from "./support/app";
import { databaseKinds } from "./support/database";
import { type Caller, caller, expectStatus } from "./support/polymer-builder";
import { finishedPolyethylene } from "./support/processing";
import { userClaims } from "./support/tokens";
import { waitFor } from "./support/wait";

/** Issue 23 finding 9: the simulated time and the time left of a run's dynamics reach the
 * execution the detail page reads, from the engine's progress lines. */

describe("the engine's progress lines", () => {
  it("carry the simulated time and the time left of dynamics, when they have them", () => {
    const seen: Array<[string, number, ProgressDetail | undefined]> = [];
    const listen = (stage: string, percent: number, detail?: ProgressDetail) => seen.push([stage, percent, detail]);
    applyEngineLine(
      '{"event":"progress","stage":"dynamics","percent":61.5,"simulated_ns":0.25,"total_ns":1,"remaining_s":42.4}',
      undefined,
      listen,
    );
    applyEngineLine(
      '{"event":"progress","stage":"dynamics","percent":62,"simulated_ns":0.3,"total_ns":1}',
      undefined,
      listen,
    );
    applyEngineLine('{"event":"progress","stage":"minimisation","percent":40}', undefined, listen);
    // Nonsense in the fields is left out, not passed on.
    applyEngineLine(
      '{"event":"progress","stage":"dynamics","percent":63,"simulated_ns":"x","total_ns":0,"remaining_s":-1}',
      undefined,
      listen,
    );
    expect(seen).toEqual([
      ["dynamics", 61.5, { simulatedNs: 0.25, totalNs: 1, remainingSeconds: 42.4 }],
      ["dynamics", 62, { simulatedNs: 0.3, totalNs: 1, remainingSeconds: null }],
      ["minimisation", 40, undefined],
      ["dynamics", 63, undefined],
    ]);
  });
});

/** Reports what the test tells it to, as the engine's lines would, and runs until stopped. */
class ScriptedExecutor implements EngineExecutor {
  readonly kind = "local";
  readonly maxJobs = 1;
  report: ExecutorRunOptions["onProgress"] | undefined;
  workdirFor(workRoot: string, jobId: string, attempt: number): string {
    return join(workRoot, `${jobId}-${attempt}`);
  }
  keepsWorkdir(): boolean {
    return false;
  }
  run(options: ExecutorRunOptions): Promise<ExecutorOutcome> {
    this.report = options.onProgress;
    return new Promise((resolve) =>
      options.signal.addEventListener("abort", () => resolve({ kind: "error", code: "CANCELLED", message: "stopped" })),
    );
  }
  async close(): Promise<void> {}
}

describe.each(databaseKinds())("an execution's dynamics progress on %s", (kind) => {
  let testApp: TestApp;
  let db: Db;
  let user: Caller;
  let processing: SystemProcessing;

  beforeAll(async () => {
    testApp = await startTestApp(kind, {}, { runJobs: false });
    db = testApp.app.database.db;
    user = caller(testApp, await testApp.issuer.sign(userClaims(), { expiresIn: "1h" }));
  });
  afterAll(async () => {
    await processing?.runner.stop();
    await testApp.close();
  });

  it("shows the simulated time and time left on the system's execution while dynamics run", async () => {
    const system = await finishedPolyethylene(user, { copies: 1, units: 2 });
    await expectStatus(user, 201, "POST", `/systems/${system.id}/process/start`);
    const executor = new ScriptedExecutor();
    processing = createSystemProcessing(testApp.config, db, testApp.app.log, { executor, pollMs: 100 });
    processing.runner.start();
    const report = await waitFor("the run to start", async () => executor.report);
    report("dynamics", 64.2, { simulatedNs: 0.4, totalNs: 1, remainingSeconds: 95 });
    const latest = async () => (await expectStatus(user, 200, "GET", `/systems/${system.id}`)).system_executions.at(-1);
    const running = await waitFor("the progress to be written", async () => {
      const execution = await latest();
      return execution.status === "running" ? execution : undefined;
    });
    expect(running).toMatchObject({
      stage: "dynamics",
      progress: 64.2,
      simulated_ns: 0.4,
      total_ns: 1,
      remaining_seconds: 95,
    });
    // A line without them (minimisation) clears them: no stale figures beside another stage. Progress
    // in one status is written at most every PROGRESS_INTERVAL_MS: the line is sent until one is.
    const minimising = await waitFor("the next progress to be written", async () => {
      report("minimisation", 10);
      const execution = await latest();
      return execution.stage === "minimisation" ? execution : undefined;
    });
    expect(minimising).toMatchObject({ simulated_ns: null, total_ns: null, remaining_seconds: null });
  });
});
