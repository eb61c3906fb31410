import { CommonErrors } from "@polyforge/contracts/errors";
import { DrizzleQueryError } from "drizzle-orm/errors";
import { describe, expect, it } from "vitest";
import { toLoggableError } from "../src/platform/errors";
import { useTestApp } from "./support/app";
import { databaseKinds } from "./support/database";
import {
  caller,
  createPolymer,
  createSegment,
  linearBlock,
  linearBlockSegment,
  startDraft,
} from "./support/polymer-builder";
import { userClaims } from "./support/tokens";

/** Issue 23 finding 4: a NUL character in any text and an integer above 2^31−1 are the client's
 * mistake (400 naming the field), never a 500 from the database; nothing logs SQL parameters. */
describe.each(databaseKinds())("input bounds on %s", (kind) => {
  const t = useTestApp(kind);

  const BIG = 2 ** 31;
  const NUL = "a\u0000b";

  type BoundsCase = [string, "GET" | "POST" | "PATCH" | "PUT", string, object | undefined, string];

  /** Names and counts of the building-block library: blocks, segments, polymers. */
  function libraryCases(block: string, segment: string, polymer: string): BoundsCase[] {
    return [
      [
        "block name",
        "POST",
        "/building_blocks",
        { type: "linear", name: NUL, data: { repeating_unit: "[*:1]CC[*:2]" } },
        "name",
      ],
      ["block list filter", "GET", `/building_blocks?name=${encodeURIComponent(NUL)}`, undefined, "name"],
      ["block version filter", "GET", `/building_blocks?version=${BIG}`, undefined, "version"],
      ["segment name", "POST", "/segments", linearBlockSegment(NUL, [[block, 2]]), "name"],
      ["segment list filter", "GET", `/segments?name=${encodeURIComponent(NUL)}`, undefined, "name"],
      [
        "segment occurrence",
        "POST",
        "/segments",
        { ...linearBlockSegment("S", [[block, BIG]]), data: { total_building_blocks: 2 } },
        "blocks.0.occurrence",
      ],
      ["polymer name", "PATCH", `/polymers/${polymer}`, { name: NUL }, "name"],
      [
        "polymer occurrence",
        "POST",
        "/polymers",
        { name: "P", force_field: "gaff2", segments: [{ segment_id: segment, occurrence: BIG, order: 1 }] },
        "segments.0.occurrence",
      ],
    ];
  }

  /** The system setup's counts and the simulation protocol's steps and seed. */
  function systemCases(polymer: string, setupId: string, protocolId: string): BoundsCase[] {
    const protocolBody = {
      simulation: "MD",
      random_seed: 1,
      minimization: true,
      minimization_steps: 10,
      dynamics: true,
      dynamics_steps: 10,
      temperature: 300,
      ensemble: "NVT",
    };
    return [
      [
        "setup occurrence",
        "PATCH",
        `/polymer_builder_systems/system_setup/${setupId}`,
        {
          polymers: [{ polymer_id: polymer, order: 1, occurrence: BIG }],
          cell_dimension_selector: "density",
          potential_wall_z: false,
          density: 0.1,
          construction_order: "as_listed_in_components",
        },
        "polymers.0.occurrence",
      ],
      [
        "dynamics steps",
        "PATCH",
        `/polymer_builder_systems/simulation_protocol/${protocolId}`,
        { ...protocolBody, dynamics_steps: BIG },
        "dynamics_steps",
      ],
      [
        "random seed",
        "PATCH",
        `/polymer_builder_systems/simulation_protocol/${protocolId}`,
        { ...protocolBody, random_seed: BIG },
        "random_seed",
      ],
    ];
  }

  /** Feedback and the account. */
  function accountCases(): BoundsCase[] {
    return [
      ["feedback", "PUT", "/feedback", { description: NUL }, "description"],
      [
        "account names",
        "PUT",
        "/users/account",
        { first_name: NUL, last_name: "L", allow_impersonation: false },
        "first_name",
      ],
    ];
  }

  it("answers 400 naming the field for NUL text and too large integers on every kind of operation", async () => {
    const user = caller(t, await t.issuer.sign(userClaims()));
    await startDraft(user);
    const block = await linearBlock(user);
    const segment = await createSegment(user, linearBlockSegment("Seg", [[block, 2]]));
    const polymer = await createPolymer(user, "Poly", [[segment, 1]]);
    const setup = (await user.call("GET", "/polymer_builder_systems/system_setup/draft")).body;
    const protocol = (await user.call("GET", "/polymer_builder_systems/simulation_protocol/draft")).body;
    const cases: BoundsCase[] = [
      ...libraryCases(block, segment, polymer),
      ...systemCases(polymer, setup.id, protocol.id),
      ...accountCases(),
    ];
    for (const [label, method, url, payload, field] of cases) {
      const response = await user.call(method, url, payload);
      expect(response.status, `${label}: ${JSON.stringify(response.body)}`).toBe(400);
      expect(response.body.errors[0], label).toMatchObject({
        error_code: CommonErrors.VALIDATION_ERROR,
        args: { field },
      });
    }
  });

  it("answers a NUL character anywhere, even in a field no schema names, with 400", async () => {
    const user = caller(t, await t.issuer.sign(userClaims()));
    const response = await user.call("PUT", "/feedback", { description: "fine", [`x${NUL}`]: 1 });
    expect(response.status).toBe(400);
  });

  it("never logs the parameters of a failed SQL statement", async () => {
    const secret = "do-not-log-me";
    const logged = JSON.stringify(toLoggableError(new DrizzleQueryError("select $1", [secret], new Error("reset"))));
    expect(logged).not.toContain(secret);
    expect(logged).toContain("select $1");
    expect(logged).toContain("reset");
  });
});
