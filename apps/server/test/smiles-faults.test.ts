import { BuildingBlockErrors, CommonErrors } from "@polyforge/contracts/errors";
import { MAX_UNIT_ATOMS, SMILES_FORMAT_MESSAGES } from "@polyforge/contracts/smiles/connection-rules";
import { describe, expect, it } from "vitest";
import { smilesChecker } from "../src/platform/chemistry/smiles-checker";
import { AppError } from "../src/platform/errors";
import { useTestApp } from "./support/app";
import { databaseKinds } from "./support/database";
import { caller } from "./support/polymer-builder";
import { userClaims } from "./support/tokens";

/** Issue 23 finding 1: a SMILES that breaks RDKit's WebAssembly module ('memory access out of
 * bounds') used to poison it for every user until a restart. */
const CHAIN_900 = `[*:1]${"C".repeat(900)}[*:2]`;

describe.each(databaseKinds())("SMILES checks that no input can break on %s", (kind) => {
  const t = useTestApp(kind);

  it("refuses a block larger than a unit before RDKit reads it, with its own code and message", async () => {
    const user = caller(t, await t.issuer.sign(userClaims()));
    const big = await user.call("POST", "/building_blocks", {
      type: "linear",
      name: "Too long",
      data: { repeating_unit: CHAIN_900 },
    });
    expect(big.status).toBe(400);
    expect(big.body.errors[0]).toEqual({
      error_code: BuildingBlockErrors.VALIDATE_SMILES_TOO_LARGE,
      args: { field: "repeating_unit", message: SMILES_FORMAT_MESSAGES.tooLarge },
    });
    expect(SMILES_FORMAT_MESSAGES.tooLarge).toContain(String(MAX_UNIT_ATOMS));
    // The module is intact: another user's valid block is still accepted.
    const other = caller(t, await t.issuer.sign(userClaims()));
    const ok = await other.call("POST", "/building_blocks", {
      type: "linear",
      name: "PE",
      data: { repeating_unit: "[*:1]CC[*:2]" },
    });
    expect(ok.status).toBe(201);
  });

  it("treats an RDKit failure as a fault: 503, logged, the worker restarted, /api/health degraded", async () => {
    const faultsBefore = smilesChecker.status().faults;
    // The molecular-system check reads whole molecules (no unit limit): RDKit fails on this one.
    const failure = await smilesChecker.parsable(CHAIN_900).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AppError);
    expect(failure).toMatchObject({ statusCode: 503, errorCode: CommonErrors.SMILES_CHECK_UNAVAILABLE });
    expect(smilesChecker.status()).toMatchObject({ status: "degraded", faults: faultsBefore + 1 });
    expect(smilesChecker.status().last_fault).toContain("memory access out of bounds");

    // A fresh module answers the next checks: valid stays valid, invalid stays invalid.
    expect(await smilesChecker.parsable("CCO")).toBe(true);
    expect(await smilesChecker.parsable("C1CC")).toBe(false);
    const user = caller(t, await t.issuer.sign(userClaims()));
    const ok = await user.call("POST", "/building_blocks", {
      type: "linear",
      name: "PE",
      data: { repeating_unit: "[*:1]CC[*:2]" },
    });
    expect(ok.status).toBe(201);

    const health = await t.app.inject({ method: "GET", url: "/api/health" });
    expect(health.json()).toMatchObject({ status: "degraded", smiles: { status: "degraded" } });
  });
});
