import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

// The repository's import rules (.dependency-cruiser.cjs, run by `make lint`) tried on a small tree
// with one deliberate breach of each rule beside imports the rules allow, cruised over the same
// folders as `npm run lint:imports`.
const root = resolve(import.meta.dirname, "../../..");
const fixture = join(import.meta.dirname, "fixtures/import-rules");

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

/** The folders `npm run lint:imports` cruises. */
function lintedFolders(): string[] {
  const script: string = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts["lint:imports"];
  const words = script.split(/\s+/);
  return words.slice(words.indexOf("depcruise") + 1, words.indexOf("--config"));
}

async function violations(): Promise<string[]> {
  const { stdout } = await promisify(execFile)(
    join(root, "node_modules/.bin/depcruise"),
    [...lintedFolders(), "--config", join(root, ".dependency-cruiser.cjs"), "--output-type", "json"],
    { cwd: fixture, maxBuffer: 16 * 1024 * 1024 },
  ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" })); // exits non-zero on errors
  const found: Violation[] = JSON.parse(stdout).summary.violations;
  // A package is named by its folder, wherever node_modules is.
  const named = (path: string) => path.replace(/^.*node_modules\/([^/]+)\/.*$/, "package $1");
  return found.map((v) => `${v.rule.name}: ${v.from} -> ${named(v.to)}`).sort();
}

describe("import rules", () => {
  it("cruises the server, the web app and the contracts", () => {
    expect(lintedFolders()).toEqual(["apps/web/src", "apps/server/src", "packages/contracts/src"]);
  });

  it("refuses each forbidden import and only those", async () => {
    const server = "apps/server/src";
    expect(await violations()).toEqual([
      // S5: no cycles in any of the three trees (each cycle told once).
      `no-cycles: ${server}/modules/feedback/one.ts -> ${server}/modules/feedback/two.ts`,
      "no-cycles: packages/contracts/src/bounds.ts -> packages/contracts/src/limits.ts",
      // S1: floors, generated from the one list; every module has one; the top floor is app.ts's.
      `server-floors: ${server}/modules/systems/service.ts -> ${server}/modules/polymers/queries.ts`,
      `server-module-context-to-modules: ${server}/modules/module-context.ts -> ${server}/modules/systems/queries.ts`,
      // S2: another module's service.ts or queries.ts only; its schema.ts from a schema.ts.
      `server-module-surface: ${server}/modules/polymers/repository.ts -> ${server}/modules/segments/repository.ts`,
      `server-module-surface: ${server}/modules/polymers/repository.ts -> ${server}/modules/segments/schema.ts`,
      `server-module-without-floor: ${server}/modules/unplaced/service.ts -> ${server}/platform/p.ts`,
      // S4: platform knows no module; nothing imports a root.
      `server-platform-to-modules: ${server}/platform/q.ts -> ${server}/modules/systems/queries.ts`,
      `server-roots-on-top: ${server}/platform/q.ts -> ${server}/worker.ts`,
      `server-routes-to-repository: ${server}/modules/segments/routes.ts -> ${server}/modules/segments/repository.ts`,
      `server-schema-surface: ${server}/modules/segments/schema.ts -> ${server}/modules/systems/queries.ts`,
      // S3: SQL only in the data files.
      `server-sql-in-data-files: ${server}/modules/segments/service.ts -> package drizzle-orm`,
      `server-top-floor-from-app: ${server}/jobs.ts -> ${server}/modules/catalogue/service.ts`,
      // W2, W1.
      "web-feature-to-feature: apps/web/src/features/a/a.ts -> apps/web/src/features/b/b.ts",
      "web-shared-to-features: apps/web/src/components/uses-feature.ts -> apps/web/src/features/b/b.ts",
      "web-shared-to-features: apps/web/src/lib/uses-feature.ts -> apps/web/src/features/b/b.ts",
    ]);
  }, 60_000);
});
