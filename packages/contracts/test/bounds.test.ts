import { describe, expect, it } from "vitest";
import { jsonNestsDeeperThan, MAX_JSON_DEPTH, nulCharacterPath } from "../src/bounds";

describe("nulCharacterPath", () => {
  it("names the first NUL in a value, a key, or nowhere", () => {
    expect(nulCharacterPath({ a: "x", segments: [{ name: "ok" }, { name: "b\u0000d" }] })).toBe("segments.1.name");
    expect(nulCharacterPath({ a: { "k\u0000": 1 } })).toBe("a.k\\0");
    expect(nulCharacterPath("a\u0000")).toBe("");
    expect(nulCharacterPath({ a: [1, true, null, { b: "c" }] })).toBeNull();
    expect(nulCharacterPath(undefined)).toBeNull();
  });

  it("walks any depth without exhausting the stack", () => {
    let value: unknown = "deep\u0000";
    for (let i = 0; i < 200_000; i++) value = [value];
    expect(nulCharacterPath(value)).toBe(Array(200_000).fill("0").join("."));
  });
});

describe("jsonNestsDeeperThan", () => {
  it("counts arrays and objects, not brackets inside strings", () => {
    const deep = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
    expect(jsonNestsDeeperThan(deep(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonNestsDeeperThan(deep(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(jsonNestsDeeperThan(`{"a":{"b":[1,2,{"c":"[[[["}]}}`, 4)).toBe(false);
    expect(jsonNestsDeeperThan(`{"a":{"b":[1,2,{"c":"[[[["}]}}`, 3)).toBe(true);
    expect(jsonNestsDeeperThan(`["\\"[[[[[", "\\\\", [[]]]`, 3)).toBe(false);
    expect(jsonNestsDeeperThan(`["\\"[[[[[", "\\\\", [[[]]]]`, 3)).toBe(true);
  });
});
