import { describe, expect, it } from "vitest";
import {
  AT_LEAST_ZERO_MESSAGE,
  createPotentialBody,
  generatePotentialForm,
  POTENTIAL_DEFAULTS,
  potentialForceFieldsFor,
  VALID_NUMBER_MESSAGE,
  WHOLE_NUMBER_MESSAGE,
} from "../src/potentials";
import { fileProblem, TOPOLOGY_FILE, uploadBeginBody } from "../src/uploads";

function messages(input: unknown): string[] {
  const parsed = generatePotentialForm.safeParse(input);
  return parsed.success ? [] : parsed.error.issues.map((issue) => issue.message);
}

const valid = { name: "GAFF2 water", description: "", force_field: "GAFF2", charge: "0", minimization_steps: "5" };

describe("generate potential (SPEC §5)", () => {
  it("accepts the defaults, trimmed, as numbers", () => {
    const parsed = generatePotentialForm.parse({ ...valid, ...POTENTIAL_DEFAULTS, charge: "  -2 " });
    expect(parsed).toMatchObject({ force_field: "GAFF2", charge: -2, minimization_steps: 5 });
  });
  it("says a charge is not a number, or not whole", () => {
    expect(messages({ ...valid, charge: "abc" })).toEqual([VALID_NUMBER_MESSAGE]);
    expect(messages({ ...valid, charge: "1.5" })).toEqual([WHOLE_NUMBER_MESSAGE]);
    expect(messages({ ...valid, charge: 1.5 })).toEqual([WHOLE_NUMBER_MESSAGE]);
    expect(messages({ ...valid, charge: "  " })).toEqual(["Required field"]);
  });
  it("needs at least 0 minimisation steps", () => {
    expect(messages({ ...valid, minimization_steps: "-1" })).toEqual([AT_LEAST_ZERO_MESSAGE]);
    expect(messages({ ...valid, minimization_steps: 0 })).toEqual([]);
  });
  it("offers GAFF and GAFF2 only", () => {
    expect(messages({ ...valid, force_field: "glycam_06j" }).length).toBe(1);
  });
  it("reads the origin to pick the body", () => {
    expect(createPotentialBody.parse({ origin: "upload", name: " top " })).toEqual({
      origin: "upload",
      name: "top",
      description: "",
    });
    expect(createPotentialBody.safeParse({ origin: "other", name: "x" }).success).toBe(false);
  });
});

describe("force fields by organization (SPEC §6)", () => {
  it("gives the cosmetics company GAFF2 only and everyone else both", () => {
    expect(potentialForceFieldsFor("cosmetics")).toEqual(["GAFF2"]);
    expect(potentialForceFieldsFor("polyforge")).toEqual(["GAFF", "GAFF2"]);
    expect(potentialForceFieldsFor(undefined)).toEqual(["GAFF", "GAFF2"]);
  });
});

describe("topology upload (SPEC §9)", () => {
  it("takes a .top up to 4000 MB", () => {
    const body = uploadBeginBody(TOPOLOGY_FILE);
    expect(body.safeParse({ file: "system.top", file_size: 4000 * 1024 * 1024 }).success).toBe(true);
    expect(fileProblem(TOPOLOGY_FILE, "system.top", 4000 * 1024 * 1024 + 1)).toBe(
      "The file exceeds the maximum size of 4000 MB",
    );
    expect(fileProblem(TOPOLOGY_FILE, "system.itp", 10)).toBe("The file has an unsupported file type. Accepted: .top");
  });
});
