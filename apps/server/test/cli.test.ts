import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../src/platform/paths";

const polyforge = (...args: string[]) =>
  spawnSync(process.execPath, [resolve(REPO_ROOT, "apps/server/bin/polyforge.js"), ...args], {
    encoding: "utf8",
    timeout: 30_000,
    env: { ...process.env, PORT: "not-a-port" },
  });

describe("the polyforge command", () => {
  it("refuses to run the worker without a shared PostgreSQL (DATABASE_URL)", () => {
    const run = spawnSync(process.execPath, [resolve(REPO_ROOT, "apps/server/bin/polyforge.js"), "worker"], {
      encoding: "utf8",
      timeout: 30_000,
      env: { ...process.env, DATABASE_URL: "" },
    });
    expect(run.status).toBe(1);
    expect(run.stderr.trim()).toBe("polyforge worker needs DATABASE_URL: the embedded database belongs to one server");
  });

  it("prints its usage for help, and for an unknown command with exit 2", () => {
    expect(polyforge("help").stdout).toContain("serve");
    const unknown = polyforge("frobnicate");
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'frobnicate'");
  });

  it("serves by default, reading the same settings as main.ts", () => {
    const run = polyforge();
    expect(run.status).toBe(1);
    expect(run.stderr.trim()).toMatch(/^Invalid setting: PORT /);
  });
});
