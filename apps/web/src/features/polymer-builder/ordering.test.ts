import { describe, expect, it } from "vitest";
import { fieldErrors, moveItem } from "./ordering";

describe("moveItem", () => {
  it("swaps an item with its neighbour", () => {
    expect(moveItem(["a", "b", "c"], 1, -1)).toEqual(["b", "a", "c"]);
    expect(moveItem(["a", "b", "c"], 1, 1)).toEqual(["a", "c", "b"]);
  });
  it("leaves the list alone at its ends", () => {
    expect(moveItem(["a", "b"], 0, -1)).toEqual(["a", "b"]);
    expect(moveItem(["a", "b"], 1, 1)).toEqual(["a", "b"]);
  });
});

describe("fieldErrors", () => {
  it("keeps the first message per field path", () => {
    expect(
      fieldErrors([
        { path: ["blocks", 0, "occurrence"], message: "first" },
        { path: ["blocks", 0, "occurrence"], message: "second" },
        { path: ["name"], message: "Required field" },
      ]),
    ).toEqual({ "blocks.0.occurrence": "first", name: "Required field" });
  });
});
