import { SystemErrors } from "@polyforge/contracts/errors";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./support/app";
import { databaseKinds } from "./support/database";
import { type Caller, caller } from "./support/polymer-builder";
import { polyethyleneDraft } from "./support/processing";
import { userClaims } from "./support/tokens";

interface Ask {
  copies?: number;
  units?: number;
  cellSide?: number;
  temperature?: number;
  dynamicsSteps?: number;
}

/** Issue 23 finding 2: a job's size is bounded at the API by the server's settings, with messages
 * about the user's system (10^7 chains, a 10^6 Å cell, 1e308 K, 2^31−1 steps were accepted). */
describe.each(databaseKinds())("job limits on %s", (kind) => {
  let t: TestApp;
  let user: Caller;
  beforeAll(async () => {
    t = await startTestApp(kind, { POLYFORGE_MAX_ATOMS: "5000", POLYFORGE_MAX_DYNAMICS_STEPS: "1000000" });
    user = caller(t, await t.issuer.sign(userClaims()));
  });
  afterAll(() => t?.close());

  /** A polyethylene system through the builder's calls; answers the finishing call's response. */
  async function finish({ copies = 2, units = 3, cellSide = 25, temperature = 300, dynamicsSteps = 100 }: Ask) {
    const draftId = await polyethyleneDraft(user, {
      copies,
      units,
      cellSide,
      temperature,
      dynamicsSteps,
      minimizationSteps: 10,
      randomSeed: 1,
    });
    const response = await user.call("PATCH", `/systems/${draftId}/draft`, { name: "Limits", is_draft: false });
    if (response.status !== 200) await user.call("DELETE", "/systems/draft");
    return response;
  }

  async function expectRefused(ask: Ask, field: string, words: string) {
    const response = await finish(ask);
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(response.body.errors[0]).toMatchObject({ error_code: SystemErrors.VALIDATE_JOB_LIMIT, args: { field } });
    expect(response.body.errors[0].args.message).toContain(words);
  }

  it("tells the web app this deployment's limits in /config.json", async () => {
    const response = await t.app.inject({ method: "GET", url: "/config.json" });
    expect(response.statusCode).toBe(200);
    expect(response.json().jobLimits).toMatchObject({ maxAtoms: 5000, maxDynamicsSteps: 1_000_000 });
  });

  it("refuses too many atoms (chains × units × atoms of the unit) with the estimate and the limit", async () => {
    // 10^7 chains of 3 ethylene units: 6 × 10^7 carbon atoms.
    await expectRefused({ copies: 10_000_000 }, "system_setup.polymers", "at most 5,000");
    // 1,000 chains of 3 units are 6,000 carbons, over this server's 5,000; 100 chains are not.
    await expectRefused({ copies: 1_000 }, "system_setup.polymers", "about 6,000 atoms");
    expect((await finish({ copies: 100 })).status).toBe(200);
  });

  it("refuses a cell side beyond the maximum or under twice the cutoff", async () => {
    await expectRefused({ cellSide: 1e6 }, "system_setup.cell_sides", "and 2,000 Å");
    await expectRefused({ cellSide: 1e308 }, "system_setup.cell_sides", "and 2,000 Å");
    await expectRefused({ cellSide: 15 }, "system_setup.cell_sides", "twice the 10 Å cutoff");
  });

  it("refuses an absurd temperature and more dynamics steps than the setting allows", async () => {
    await expectRefused({ temperature: 1e308 }, "simulation_protocol.temperature", "at most 5,000 K");
    await expectRefused(
      { dynamicsSteps: 2 ** 31 - 1 },
      "simulation_protocol.dynamics_steps",
      "at most 1,000,000 steps",
    );
  });
});
