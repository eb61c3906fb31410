import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../src/platform/paths";

/** A port nobody listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

// The server as `make start` runs it: main.ts, embedded PGlite and identity provider, real port.
describe("the server process", () => {
  let server: ChildProcess | undefined;
  afterAll(() => {
    server?.kill("SIGKILL");
  });

  it("starts with the embedded defaults, serves, and shuts down cleanly on SIGTERM", async () => {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    server = spawn(process.execPath, ["--import", "tsx", resolve(REPO_ROOT, "apps/server/src/main.ts")], {
      env: {
        ...process.env,
        PORT: String(port),
        PUBLIC_URL: baseUrl,
        POLYFORGE_DATA_DIR: mkdtempSync(join(tmpdir(), "polyforge-main-")),
        POLYFORGE_DEMO_PASSWORD: "Demo-Passw0rd!",
        DATABASE_URL: "",
        OIDC_ISSUER: "",
        LOG_LEVEL: "warn",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    server.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    server.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });

    let health: Response | undefined;
    for (let attempt = 0; attempt < 240 && !health; attempt++) {
      health = await fetch(`${baseUrl}/api/health`).catch(() => undefined);
      if (!health) await new Promise((r) => setTimeout(r, 500));
    }
    expect(health?.status, output).toBe(200);
    expect(((await health!.json()) as { database: { reachable: boolean } }).database.reachable).toBe(true);

    const clientConfig = (await (await fetch(`${baseUrl}/config.json`)).json()) as { oidcProvider: string };
    expect(clientConfig).toMatchObject({ oidcProvider: `${baseUrl}/auth/realms/polyforge`, clientId: "polyforge-web" });
    const discovery = await fetch(`${baseUrl}/auth/realms/polyforge/.well-known/openid-configuration`);
    expect(discovery.status).toBe(200);
    expect(((await discovery.json()) as { issuer: string }).issuer).toBe(clientConfig.oidcProvider);

    const exited = once(server, "exit");
    server.kill("SIGTERM");
    const [code] = await exited;
    expect(code, output).toBe(0);
  });
});
