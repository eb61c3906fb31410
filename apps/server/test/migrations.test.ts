import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const server = resolve(import.meta.dirname, "..");

/**
 * The migration recipe of apps/server/README.md holds: the last snapshot in migrations/meta is what
 * the schema.ts files declare, so `npm run db:generate` writes only the next change. A table or
 * column changed without its migration (and snapshot) fails here.
 */
describe("migrations", () => {
  it("end with a snapshot of every schema.ts, so drizzle-kit finds nothing to generate", async () => {
    const copy = join(mkdtempSync(join(tmpdir(), "polyforge-migrations-")), "migrations");
    cpSync(join(server, "migrations"), copy, { recursive: true });
    // drizzle-kit takes the output folder relative to where it runs.
    const { stdout } = await promisify(execFile)(
      resolve(server, "../../node_modules/.bin/drizzle-kit"),
      ["generate", "--dialect", "postgresql", "--schema", "./src/**/schema.ts", "--out", relative(server, copy)],
      { cwd: server },
    );
    expect(stdout).toContain("No schema changes");
    expect(readdirSync(copy).filter((name) => name.endsWith(".sql"))).toEqual(
      readdirSync(join(server, "migrations")).filter((name) => name.endsWith(".sql")),
    );
  }, 120_000);
});
