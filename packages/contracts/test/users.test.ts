import { describe, expect, it } from "vitest";
import { z } from "zod";
import { PASSWORD_MAX_LENGTH, passwordProblems, passwordSchema } from "../src/users";

/** What the OpenAPI document says of a password (length and pattern) is what the rules accept. */
describe("the password rules as JSON Schema", () => {
  const documented = z.toJSONSchema(passwordSchema) as { minLength: number; maxLength: number; pattern: string };
  const pattern = new RegExp(documented.pattern);
  const byDocument = (p: string) =>
    [...p].length >= documented.minLength && [...p].length <= documented.maxLength && pattern.test(p);

  it.each([
    "Str0ng!pass",
    "short1!A",
    "Sh0rt!",
    "lower-passw0rd!",
    "UPPER-PASSW0RD!",
    "NoDigits!!",
    "N0Special1",
    "My-PolyForge-1",
    "my-pOLYfORGE-1!",
    "Poly-Forge-1!",
    "Aa1!😀😀😀😀",
    "Aa1!😀😀😀",
    `Aa1!${"😀".repeat(PASSWORD_MAX_LENGTH - 4)}`,
    `Aa1!${"😀".repeat(PASSWORD_MAX_LENGTH - 3)}`,
    `Aa1!${"x".repeat(PASSWORD_MAX_LENGTH - 4)}`,
    `Aa1!${"x".repeat(PASSWORD_MAX_LENGTH - 3)}`,
    "Aa1\n\nxyz!",
    "Aa1 bcd e",
  ])("agrees on %j", (password) => {
    expect(byDocument(password)).toBe(passwordProblems(password).length === 0);
  });
});
