import { BuildingBlockErrors, CommonErrors, SystemErrors } from "@polyforge/contracts/errors";
import { drawnSmilesTooLargeMessage, MAX_DRAWN_SMILES_ATOMS } from "@polyforge/contracts/molecular-systems";
import { MAX_UNIT_ATOMS, SMILES_FORMAT_MESSAGES } from "@polyforge/contracts/smiles/connection-rules";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { smilesChecker } from "../src/platform/chemistry/smiles-checker";
import { startTestApp, type TestApp } from "./support/app";
import { databaseKinds } from "./support/database";
import { type Caller, caller } from "./support/polymer-builder";
import { userClaims } from "./support/tokens";

/** Chains that broke RDKit's WebAssembly module ('memory access out of bounds') when it read them. */
const CHAIN_900 = "C".repeat(900);
const CHAIN_1999 = "C".repeat(1999);

/** A fused aromatic ladder that RDKit cannot kekulize: it searches for minutes (exponentially in
 * `rings`; 20 rings take ~0.5 s), far past the checker's time for one check. 4·rings+2 atoms. */
function unkekulizableLadder(rings: number): string {
  const label = (i: number) => (i < 9 ? String(i + 1) : `%${i + 1}`);
  let smiles = `c${label(0)}ccc`;
  for (let i = 1; i < rings; i++) smiles += `${label(i)}cc`;
  smiles = `${smiles.slice(0, -1)}cc`;
  for (let i = rings - 1; i >= 1; i--) smiles += `c${label(i)}c`;
  return `${smiles}c${label(0)}`;
}

async function smilesSystem(user: Caller): Promise<string> {
  const created = await user.call("POST", "/systems", { name: `Drawn ${Math.random()}`, origin: "smiles" });
  expect(created.status).toBe(201);
  return created.body.id;
}

const validBlock = (user: Caller) =>
  user.call("POST", "/building_blocks", { type: "linear", name: "PE", data: { repeating_unit: "[*:1]CC[*:2]" } });

describe.each(databaseKinds())("SMILES checks that no user can knock over on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind, { POLYFORGE_WRITES_PER_MINUTE: "100000" });
  });
  afterAll(() => t?.close());

  it("refuses a block larger than a unit before RDKit reads it, with its own code and message", async () => {
    const user = caller(t, await t.issuer.sign(userClaims()));
    const big = await user.call("POST", "/building_blocks", {
      type: "linear",
      name: "Too long",
      data: { repeating_unit: `[*:1]${CHAIN_900}[*:2]` },
    });
    expect(big.status).toBe(400);
    expect(big.body.errors[0]).toEqual({
      error_code: BuildingBlockErrors.VALIDATE_SMILES_TOO_LARGE,
      args: { field: "repeating_unit", message: SMILES_FORMAT_MESSAGES.tooLarge },
    });
    expect(SMILES_FORMAT_MESSAGES.tooLarge).toContain(String(MAX_UNIT_ATOMS));
  });

  it("refuses a drawn structure past 1,000 atoms: on the text before RDKit, then with its hydrogens", async () => {
    const user = caller(t, await t.issuer.sign(userClaims()));
    const system = await smilesSystem(user);
    const faultsBefore = smilesChecker.status().faults;
    const written = await user.call("POST", `/systems/${system}/smiles`, { smiles: CHAIN_1999 });
    expect(written.status).toBe(400);
    expect(written.body.errors[0]).toEqual({
      error_code: SystemErrors.CREATE_DRAWN_SYSTEM_SMILES_TOO_LARGE,
      args: { atoms: 1999, max_atoms: MAX_DRAWN_SMILES_ATOMS, message: drawnSmilesTooLargeMessage(1999, "written") },
    });
    expect(written.body.errors[0].args.message).toContain("at least 1,999 atoms");
    // 900 carbons are 2,702 atoms with their hydrogens; RDKit counts them, without failing.
    const withHydrogens = await user.call("POST", `/systems/${system}/smiles`, { smiles: CHAIN_900 });
    expect(withHydrogens.status).toBe(400);
    expect(withHydrogens.body.errors[0].args).toMatchObject({ atoms: 2702, max_atoms: 1000 });
    expect(withHydrogens.body.errors[0].args.message).toContain("2,702 atoms with its hydrogens");
    expect(smilesChecker.status().faults).toBe(faultsBefore);
    // Nothing was queued: the system still takes a structure, and a small one is converted.
    expect((await user.call("POST", `/systems/${system}/smiles`, { smiles: "C".repeat(300) })).status).toBe(202);
  });

  it("keeps another user's block creations working while two clients loop large SMILES", async () => {
    const attackers = await Promise.all([0, 1].map(async () => caller(t, await t.issuer.sign(userClaims()))));
    const systems = await Promise.all(attackers.map(smilesSystem));
    const victim = caller(t, await t.issuer.sign(userClaims()));
    const loops = attackers.map(async (attacker, i) => {
      const statuses: number[] = [];
      for (let round = 0; round < 6; round++) {
        for (const smiles of [CHAIN_1999, `${CHAIN_900}${"C".repeat(round + i)}`]) {
          statuses.push((await attacker.call("POST", `/systems/${systems[i]}/smiles`, { smiles })).status);
        }
      }
      return statuses;
    });
    const created = await Promise.all(Array.from({ length: 12 }, () => validBlock(victim)));
    expect(created.map((response) => response.status)).toEqual(Array(12).fill(201));
    for (const statuses of await Promise.all(loops)) expect(new Set(statuses)).toEqual(new Set([400]));
    const health = (await t.app.inject({ method: "GET", url: "/api/health" })).json();
    expect(health.smiles.status).toBe("ok");
  });
});

/** RDKit can still fail on some input: a hang stands for it here (the checker treats both alike). */
describe("a SMILES that makes RDKit fail", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp("pglite", { POLYFORGE_WRITES_PER_MINUTE: "100000" });
    // One check takes milliseconds; a shorter limit reaches the hang sooner.
    smilesChecker.checkTimeoutMs = 3000;
  });
  afterAll(() => t?.close());

  it("is refused and remembered, its sender's faults are counted, and nobody else notices", async () => {
    const attackerToken = await t.issuer.sign(userClaims());
    const attacker = caller(t, attackerToken);
    const system = await smilesSystem(attacker);
    const victim = caller(t, await t.issuer.sign(userClaims()));
    const faultsBefore = smilesChecker.status().faults;

    // The victim's checks queued behind the hang are answered by the fresh worker, not failed.
    const hung = attacker.call("POST", `/systems/${system}/smiles`, { smiles: unkekulizableLadder(60) });
    const meanwhile = await Promise.all(Array.from({ length: 4 }, () => validBlock(victim)));
    expect(
      meanwhile.map((response) => response.status),
      JSON.stringify(meanwhile[0]?.body),
    ).toEqual([201, 201, 201, 201]);
    const refused = await hung;
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].error_code).toBe(CommonErrors.SMILES_CHECK_FAILED);
    expect(smilesChecker.status()).toMatchObject({ faults: faultsBefore + 1 });
    expect(smilesChecker.status().last_fault).toContain("took more than 3 s");

    // The same SMILES again is refused at once, without a second fault.
    const again = await attacker.call("POST", `/systems/${system}/smiles`, { smiles: unkekulizableLadder(60) });
    expect(again.status).toBe(400);
    expect(again.body.errors[0].error_code).toBe(CommonErrors.SMILES_CHECK_FAILED);
    expect(smilesChecker.status().faults).toBe(faultsBefore + 1);

    // Two more faults, and the sender's checks are suspended, even of a valid SMILES.
    for (const rings of [61, 62]) {
      const response = await attacker.call("POST", `/systems/${system}/smiles`, { smiles: unkekulizableLadder(rings) });
      expect(response.body.errors[0].error_code).toBe(CommonErrors.SMILES_CHECK_FAILED);
    }
    const suspended = await t.app.inject({
      method: "POST",
      url: `/api/v2/systems/${system}/smiles`,
      headers: { authorization: `Bearer ${attackerToken}` },
      payload: { smiles: "CCO" },
    });
    expect(suspended.statusCode).toBe(429);
    expect(suspended.json().errors[0]).toMatchObject({
      error_code: CommonErrors.SMILES_CHECKS_SUSPENDED,
      args: { minutes: 10 },
    });
    expect(Number(suspended.headers["retry-after"])).toBeGreaterThan(500);
    expect(smilesChecker.status().faults).toBe(faultsBefore + 3);

    // Everybody else is served, and health is ok once the fresh worker has answered.
    expect((await validBlock(victim)).status).toBe(201);
    const health = await t.app.inject({ method: "GET", url: "/api/health" });
    expect(health.json()).toMatchObject({ smiles: { status: "ok", faults: faultsBefore + 3 } });
  }, 120_000);
});
