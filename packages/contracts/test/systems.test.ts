import { describe, expect, it } from "vitest";
import { finishDraftBody, sanitizeSystemName, systemTypeFor } from "../src/systems";

describe("system type (ARCHITECTURE §5)", () => {
  it("is molecule for one molecule in total", () => {
    expect(systemTypeFor([1])).toBe("molecule");
  });
  it("is system for several copies of one kind", () => {
    expect(systemTypeFor([5])).toBe("system");
  });
  it("is mixed for more than one kind", () => {
    expect(systemTypeFor([1, 1])).toBe("mixed");
    expect(systemTypeFor([3, 2, 1])).toBe("mixed");
  });
  it("is not_defined when nothing is set up", () => {
    expect(systemTypeFor([])).toBe("not_defined");
  });
});

describe("finishing a draft", () => {
  it("needs a name of at least one character and is_draft false", () => {
    expect(finishDraftBody.safeParse({ name: "PE box", is_draft: false }).success).toBe(true);
    expect(finishDraftBody.safeParse({ name: " ", is_draft: false }).success).toBe(false);
    expect(finishDraftBody.safeParse({ name: "x", is_draft: true }).success).toBe(false);
  });

  it("sanitizes names for files", () => {
    expect(sanitizeSystemName("  My PE box #1 ")).toBe("my_pe_box_1");
    expect(sanitizeSystemName("Ünïcode!!")).toBe("n_code");
    expect(sanitizeSystemName("***")).toBe("system");
  });
});
