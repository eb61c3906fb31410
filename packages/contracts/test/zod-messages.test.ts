import { describe, expect, it } from "vitest";
import { z } from "zod";
import { polymerCreateBody } from "../src/polymers";
import "../src/bounds";

const message = (schema: z.ZodType, value: unknown) => schema.safeParse(value).error?.issues[0]?.message;

describe("readable default messages (issue 24: no 'Too big: expected string to have <=255 characters')", () => {
  it("says how many characters, items or how large, in words", () => {
    expect(message(z.string().max(255), "x".repeat(256))).toBe("At most 255 characters");
    expect(message(z.string().min(1), "")).toBe("Required field");
    expect(message(z.array(z.string()).min(1), [])).toBe("At least 1 items");
    expect(message(z.number().positive(), 0)).toBe("Must be greater than 0");
    expect(message(z.int().max(10), 11)).toBe("Must be at most 10");
    expect(message(z.object({ name: z.string() }), {})).toBe("Required field");
  });

  it("reaches the product's own schemas (a polymer name too long)", () => {
    const body = { name: "P".repeat(256), force_field: "gaff2", segments: [] };
    const issue = polymerCreateBody.safeParse(body).error?.issues.find((i) => i.path[0] === "name");
    expect(issue?.message).toBe("At most 255 characters");
  });

  it("keeps the messages a schema gives itself", () => {
    expect(message(z.string().max(3, "Three at most"), "abcd")).toBe("Three at most");
  });
});
