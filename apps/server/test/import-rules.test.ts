import { execFile } from "node:child_process";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

// The repository's import rules (.dependency-cruiser.cjs, run by `make lint`) tried on a small tree
// with one deliberate breach of each rule beside imports the rules allow.
const root = resolve(import.meta.dirname, "../../..");
const fixture = join(import.meta.dirname, "fixtures/import-rules");

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

async function violations(): Promise<string[]> {
  const { stdout } = await promisify(execFile)(
    join(root, "node_modules/.bin/depcruise"),
    ["apps", "--config", join(root, ".dependency-cruiser.cjs"), "--output-type", "json"],
    { cwd: fixture, maxBuffer: 16 * 1024 * 1024 },
  ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" })); // exits non-zero on errors
  const found: Violation[] = JSON.parse(stdout).summary.violations;
  return found.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort();
}

describe("import rules", () => {
  it("refuses each forbidden import and only those", async () => {
    expect(await violations()).toEqual([
      "server-module-to-other-module-data: apps/server/src/modules/n/repository.ts -> apps/server/src/modules/m/schema.ts",
      "server-module-to-other-module-data: apps/server/src/modules/n/service.ts -> apps/server/src/modules/m/repository.ts",
      "server-platform-to-modules: apps/server/src/platform/p.ts -> apps/server/src/modules/m/repository.ts",
      "server-routes-to-repository: apps/server/src/modules/m/routes.ts -> apps/server/src/modules/m/repository.ts",
      "web-feature-to-feature: apps/web/src/features/a/a.ts -> apps/web/src/features/b/b.ts",
      "web-lib-to-features: apps/web/src/lib/uses-feature.ts -> apps/web/src/features/b/b.ts",
    ]);
  }, 60_000);
});
