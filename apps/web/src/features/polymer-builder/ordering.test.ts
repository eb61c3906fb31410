import { act, renderHook } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { errorsOf, fieldErrors, moveItem, useRevalidatedErrors } from "./ordering";

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

describe("errors shown after a submit (issue 24: 'Required field' clears as soon as the field is valid)", () => {
  const form = z.object({ name: z.string().trim().min(1, "Required field"), ratio: z.string().regex(/^[1-9]\d*$/) });

  it("shows nothing before a submit, then re-checks on every change", () => {
    const { result, rerender } = renderHook(
      ({ name, ratio }) => {
        const [errors, setErrors] = useRevalidatedErrors(
          () => errorsOf(form.safeParse({ name, ratio })),
          [name, ratio],
        );
        return { errors, submit: () => setErrors(errorsOf(form.safeParse({ name, ratio }))) };
      },
      { initialProps: { name: "", ratio: "0" } },
    );
    expect(result.current.errors).toEqual({});
    act(() => result.current.submit());
    expect(Object.keys(result.current.errors).sort()).toEqual(["name", "ratio"]);
    rerender({ name: "PE", ratio: "0" });
    expect(result.current.errors).toEqual({ ratio: expect.any(String) });
    rerender({ name: "PE", ratio: "2" });
    expect(result.current.errors).toEqual({});
  });
});
