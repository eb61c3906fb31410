import { describe, expect, it } from "vitest";
import { hashPassword, verifyPassword } from "../src/platform/identity/passwords";

describe("password hashing", () => {
  it("stores scrypt$N$r$p$salt$hash with a fresh salt each time", async () => {
    const first = await hashPassword("Strong-Passw0rd!");
    const second = await hashPassword("Strong-Passw0rd!");
    expect(first).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(first).not.toBe(second);
    expect(first).not.toContain("Strong-Passw0rd!");
  });

  it("verifies the right password only", async () => {
    const hash = await hashPassword("Strong-Passw0rd!");
    expect(await verifyPassword("Strong-Passw0rd!", hash)).toBe(true);
    expect(await verifyPassword("strong-Passw0rd!", hash)).toBe(false);
    expect(await verifyPassword("", hash)).toBe(false);
  });

  it("treats the composed and decomposed forms of an accented password alike", async () => {
    const hash = await hashPassword("Caf\u00e9-Passw0rd!");
    expect(await verifyPassword("Cafe\u0301-Passw0rd!", hash)).toBe(true);
  });

  it("verifies hashes made with other cost parameters (RFC 7914's test vector)", async () => {
    // scrypt("password", "NaCl", N = 1024, r = 8, p = 16, 64 bytes) from RFC 7914 §12: the
    // parameters and the key length travel with the hash.
    const hash =
      "scrypt$1024$8$16$TmFDbA==$/bq+HJ00cgB4VucZDQHp/nxq18vII3gw53N2Y0s3MWIurzDZLiKjiG/xCSedmDDaxyevuUqD7m2DYMvfoswGQA==";
    expect(await verifyPassword("password", hash)).toBe(true);
    expect(await verifyPassword("passwore", hash)).toBe(false);
  });

  it("never matches a malformed hash", async () => {
    const good = await hashPassword("Strong-Passw0rd!");
    const parts = good.split("$");
    const malformed = [
      "",
      "plain-text",
      `bcrypt$${parts.slice(1).join("$")}`,
      ["scrypt", "1000", ...parts.slice(2)].join("$"), // N not a power of two
      ["scrypt", "0", ...parts.slice(2)].join("$"),
      [...parts.slice(0, 5), ""].join("$"),
      parts.slice(0, 5).join("$"),
    ];
    for (const stored of malformed) expect(await verifyPassword("Strong-Passw0rd!", stored)).toBe(false);
  });
});
