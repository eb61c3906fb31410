import { describe, expect, it } from "vitest";
import { PolymerErrors } from "../src/errors";
import {
  linearPolymerForm,
  MESO_FRACTION_MESSAGE,
  normalizePolymerForceField,
  type PolymerCreateBody,
  polymerBodyProblem,
  polymerCreateBody,
  polymerForceFieldOptions,
  polymerPatchBody,
} from "../src/polymers";
import { REQUIRED_FIELD } from "../src/users";

const SEG_A = "11111111-1111-4111-8111-111111111111";
const SEG_B = "22222222-2222-4222-8222-222222222222";

function body(overrides: Partial<PolymerCreateBody> = {}): PolymerCreateBody {
  return {
    name: "p",
    force_field: "gaff2",
    segments: [
      { segment_id: SEG_A, occurrence: 2, order: 1 },
      { segment_id: SEG_B, occurrence: 1, order: 2 },
    ],
    ...overrides,
  };
}

describe("force fields by organization", () => {
  it("offers the cosmetics company gaff2 and both glycam fields", () => {
    expect(polymerForceFieldOptions("cosmetics").map((o) => o.label)).toEqual([
      "gaff2",
      "glycam06j",
      "extended glycam06j",
    ]);
  });

  it.each(["polyforge", "other", undefined, "nonsense"])("offers %s gaff, gaff2 and glycam06j", (org) => {
    expect(polymerForceFieldOptions(org).map((o) => o.value)).toEqual(["gaff", "gaff2", "glycam_06j"]);
  });

  it("accepts both spellings of the glycam fields", () => {
    expect(normalizePolymerForceField("glycam06j")).toBe("glycam_06j");
    expect(normalizePolymerForceField("glycam_06j")).toBe("glycam_06j");
    expect(normalizePolymerForceField("extended glycam06j")).toBe("extended_glycam_06j");
    expect(normalizePolymerForceField("extended_glycam_06j")).toBe("extended_glycam_06j");
    expect(normalizePolymerForceField("amber99")).toBeNull();
  });
});

describe("polymer body rules", () => {
  it("accepts a valid polymer", () => {
    expect(polymerBodyProblem(body(), "other")).toBeNull();
  });

  it("refuses a force field the organization may not use", () => {
    expect(polymerBodyProblem(body({ force_field: "gaff" }), "cosmetics")?.code).toBe(
      PolymerErrors.VALIDATE_FORCE_FIELD,
    );
    expect(polymerBodyProblem(body({ force_field: "extended_glycam_06j" }), "other")?.code).toBe(
      PolymerErrors.VALIDATE_FORCE_FIELD,
    );
    expect(polymerBodyProblem(body({ force_field: "extended glycam06j" }), "cosmetics")).toBeNull();
  });

  it("requires segment orders positive and unique and occurrences ≥ 1", () => {
    const segments = (a: [number, number], b: [number, number]) => [
      { segment_id: SEG_A, occurrence: a[0], order: a[1] },
      { segment_id: SEG_B, occurrence: b[0], order: b[1] },
    ];
    expect(polymerBodyProblem(body({ segments: segments([1, 0], [1, 1]) }), "other")?.code).toBe(
      PolymerErrors.VALIDATE_SEGMENT_ORDER_POSITIVE,
    );
    expect(polymerBodyProblem(body({ segments: segments([1, 1], [1, 1]) }), "other")?.code).toBe(
      PolymerErrors.VALIDATE_SEGMENT_ORDER_DUPLICATE,
    );
    expect(polymerBodyProblem(body({ segments: segments([0, 1], [1, 2]) }), "other")?.code).toBe(
      PolymerErrors.VALIDATE_SEGMENT_OCCURRENCE_POSITIVE,
    );
  });
});

describe("tacticity (issue 22)", () => {
  const messages = (result: { error?: { issues: Array<{ path: PropertyKey[]; message: string }> } }) =>
    (result.error?.issues ?? []).map((i) => [i.path.join("."), i.message]);

  it("is optional in a body and takes the four kinds with a meso fraction from 0 to 1", () => {
    expect(polymerCreateBody.safeParse(body()).success).toBe(true);
    for (const kind of ["atactic", "isotactic", "syndiotactic", "as_drawn"]) {
      expect(polymerCreateBody.safeParse(body({ tacticity: { kind } as never })).success).toBe(true);
    }
    for (const meso_fraction of [0, 0.25, 1]) {
      expect(polymerCreateBody.safeParse(body({ tacticity: { kind: "atactic", meso_fraction } })).success).toBe(true);
    }
    expect(polymerPatchBody.safeParse({ tacticity: { kind: "isotactic" } }).success).toBe(true);
  });

  it("refuses a meso fraction outside [0, 1] and an unknown kind", () => {
    for (const meso_fraction of [-0.01, 1.01, 2]) {
      const result = polymerCreateBody.safeParse(body({ tacticity: { kind: "atactic", meso_fraction } }));
      expect(messages(result)).toEqual([["tacticity.meso_fraction", MESO_FRACTION_MESSAGE]]);
    }
    expect(polymerCreateBody.safeParse(body({ tacticity: { kind: "heterotactic" } as never })).success).toBe(false);
  });

  const form = (overrides: object) => ({
    name: "PS",
    force_field: "gaff2",
    segments: [{ segment_id: SEG_A, occurrence: "1" }],
    tacticity: "atactic",
    meso_fraction: "0.5",
    ...overrides,
  });

  it("checks the form's meso fraction only for atactic, beside the other fields' messages", () => {
    expect(linearPolymerForm.safeParse(form({})).success).toBe(true);
    expect(messages(linearPolymerForm.safeParse(form({ meso_fraction: "1.5" })))).toEqual([
      ["meso_fraction", MESO_FRACTION_MESSAGE],
    ]);
    expect(messages(linearPolymerForm.safeParse(form({ meso_fraction: " " })))).toEqual([
      ["meso_fraction", REQUIRED_FIELD],
    ]);
    expect(linearPolymerForm.safeParse(form({ tacticity: "isotactic", meso_fraction: "" })).success).toBe(true);
    expect(messages(linearPolymerForm.safeParse(form({ name: "", meso_fraction: "7" })))).toEqual([
      ["name", REQUIRED_FIELD],
      ["meso_fraction", MESO_FRACTION_MESSAGE],
    ]);
  });
});
