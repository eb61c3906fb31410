import { type ChildProcess, spawn } from "node:child_process";
import { resolve } from "node:path";

/** The repository's root, where the server is started from. */
export const REPO_ROOT = resolve(import.meta.dirname, "../..");

/** The environment of a product server for the specs: its port and public URL, a throwaway data
 * directory and the demo password; `extra` adds to it or overrides it. */
export function serverEnv(port: number, dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PORT: String(port),
    PUBLIC_URL: `http://localhost:${port}`,
    POLYFORGE_DATA_DIR: dataDir,
    POLYFORGE_DEMO_PASSWORD: "Demo-Passw0rd!",
    LOG_LEVEL: "warn",
    ...extra,
  };
}

/** Starts the server `make start` runs, with `env` (see serverEnv) over this process's, and waits
 * until its /api/health answers (3 minutes at the most; then it is stopped). */
export async function startServer(env: Record<string, string>, what = "the server"): Promise<ChildProcess> {
  const child = spawn("node", ["--import", "tsx", "apps/server/src/main.ts"], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, ...env },
  });
  const deadline = Date.now() + 180_000;
  for (;;) {
    const up = await fetch(`${env.PUBLIC_URL}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return child;
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill("SIGTERM");
      throw new Error(`${what} did not start`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Sends `signal` to a started server unless it has already ended, and waits for its exit. */
export async function stopServer(server: ChildProcess | undefined, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (!server || server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise((r) => server.once("exit", r));
  server.kill(signal);
  await exited;
}
