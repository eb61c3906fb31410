import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, DEFAULT_FLAGS_CLIENT_KEY, loadConfig } from "../src/platform/config";
import { REPO_ROOT } from "../src/platform/paths";

describe("loadConfig", () => {
  it("fills the embedded defaults when nothing is set", () => {
    const config = loadConfig({});
    expect(config.port).toBe(8080);
    expect(config.publicUrl).toBe("http://localhost:8080");
    expect(config.dataDir).toBe(resolve(REPO_ROOT, "data"));
    expect(config.databaseUrl).toBeUndefined();
    expect(config.oidcIssuer).toBeUndefined();
    expect(config.maxJobs).toBe(1);
    expect(config.webDistDir).toBe(resolve(REPO_ROOT, "apps/web/dist"));
    expect(config.flags).toEqual({ apiHost: "http://localhost:8080", clientKey: DEFAULT_FLAGS_CLIENT_KEY });
  });

  it("derives the public URL from the port and drops trailing slashes", () => {
    expect(loadConfig({ PORT: "9000" }).publicUrl).toBe("http://localhost:9000");
    expect(loadConfig({ PUBLIC_URL: "https://polyforge.example/" }).publicUrl).toBe("https://polyforge.example");
    expect(loadConfig({ OIDC_ISSUER: "https://kc.example/realms/polyforge/" }).oidcIssuer).toBe(
      "https://kc.example/realms/polyforge",
    );
  });

  it("treats empty values as unset", () => {
    const config = loadConfig({ DATABASE_URL: "", OIDC_ISSUER: "", PUBLIC_URL: "" });
    expect(config.databaseUrl).toBeUndefined();
    expect(config.oidcIssuer).toBeUndefined();
    expect(config.publicUrl).toBe("http://localhost:8080");
  });

  it("reads TRUST_PROXY as none, every hop or a list of proxies", () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: "" }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: "false" }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: "true" }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: "loopback, 192.0.2.0/24, 2001:db8::1" }).trustProxy).toBe(
      "loopback,192.0.2.0/24,2001:db8::1",
    );
  });

  it.each([
    [{ TRUST_PROXY: "yes" }, "TRUST_PROXY"],
    [{ TRUST_PROXY: "2" }, "TRUST_PROXY"],
    [{ TRUST_PROXY: "192.0.2.0/33" }, "TRUST_PROXY"],
    [{ TRUST_PROXY: "loopback,proxy.example" }, "TRUST_PROXY"],
    [{ PORT: "abc" }, "PORT"],
    [{ PORT: "70000" }, "PORT"],
    [{ DATABASE_URL: "mysql://db/x" }, "DATABASE_URL"],
    [{ OIDC_ISSUER: "not a url" }, "OIDC_ISSUER"],
    [{ POLYFORGE_MAX_JOBS: "0" }, "POLYFORGE_MAX_JOBS"],
    [{ LOG_LEVEL: "loud" }, "LOG_LEVEL"],
  ])("refuses %o naming the setting", (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`^Invalid setting: ${name} `));
  });
});

describe("starting with a bad setting", () => {
  it("prints one clear line on stderr and exits 1", () => {
    // As a user starts it: without vitest's NODE_ENV=test, which silences some libraries' warnings.
    const { NODE_ENV: _testEnv, ...env } = process.env;
    const run = spawnSync(process.execPath, ["--import", "tsx", resolve(REPO_ROOT, "apps/server/src/main.ts")], {
      env: { ...env, PORT: "not-a-port", DATABASE_URL: "" },
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe("");
    const lines = run.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^Invalid setting: PORT /);
  });
});
