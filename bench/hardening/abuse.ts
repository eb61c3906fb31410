/**
 * Abuse figures (issue 37 findings 4 and 5): what deeply nested JSON bodies and SMILES that break
 * RDKit do to the real app and to other users, on loopback (PGlite). One JSON line per scenario.
 *
 *   node --import tsx bench/hardening/abuse.ts [seconds=20]
 *
 * - nested-json: single bodies of 10,000 and 400,000 nested arrays (status, ms each); then 4
 *   senders loop 400,000-level bodies (0.8 MB) while a prober reads /api/health every 100 ms:
 *   the health latency under that load against the same prober with no senders.
 * - smiles-abuse: two users loop Save structure with a 1,999-carbon chain and 900-carbon chains
 *   (both broke RDKit's WebAssembly module) while a third creates valid building blocks one after
 *   another: the third user's answers by status and latency, the toolkit faults, and how often
 *   /api/health said the SMILES checker was degraded during and after the run.
 * Uses only what every tree since issue 23 has, so that compare.sh can run it before and after.
 */

import { startTestApp } from "../../apps/server/test/support/start-app";
import { userClaims } from "../../apps/server/test/support/tokens";

const seconds = Number(process.argv[2] ?? 20);
const testApp = await startTestApp(
  "pglite",
  { LOG_LEVEL: "silent", POLYFORGE_WRITES_PER_MINUTE: "1000000" },
  { runJobs: false },
);
await testApp.app.listen({ port: 0, host: "127.0.0.1" });
const address = testApp.app.server.address();
const base = typeof address === "object" && address ? `http://127.0.0.1:${address.port}` : "";

async function userHeaders(): Promise<Record<string, string>> {
  const token = await testApp.issuer.sign(userClaims(), { expiresIn: "2h" });
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  await fetch(`${base}/api/v2/users/account`, { headers });
  return headers;
}

async function timed(url: string, init: RequestInit = {}): Promise<{ status: number; ms: number; body: string }> {
  const started = performance.now();
  try {
    const response = await fetch(`${base}${url}`, init);
    const body = await response.text();
    return { status: response.status, ms: performance.now() - started, body };
  } catch {
    return { status: 0, ms: performance.now() - started, body: "" };
  }
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? Number(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(1)) : 0;
};
const countBy = (values: number[]) =>
  values.reduce<Record<string, number>>((counts, value) => {
    counts[value] = (counts[value] ?? 0) + 1;
    return counts;
  }, {});

/** /api/health read every 100 ms until `until` resolves: latencies and what it said. */
async function probeHealth(until: Promise<unknown>) {
  let done = false;
  void until.then(() => {
    done = true;
  });
  const latencies: number[] = [];
  const degraded: boolean[] = [];
  while (!done) {
    const answer = await timed("/api/health");
    latencies.push(answer.ms);
    degraded.push(smilesDegraded(answer.body));
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { latencies, degraded };
}

/** What /api/health says of the SMILES checker (its overall status also covers the engine, which a
 * benchmark tree may lack). */
function smilesDegraded(healthBody: string): boolean {
  try {
    return (JSON.parse(healthBody) as { smiles?: { status?: string } }).smiles?.status === "degraded";
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function nestedJson() {
  const headers = await userHeaders();
  const body = (depth: number) => `{"description":"x","extra":${"[".repeat(depth)}${"]".repeat(depth)}}`;
  const single: Record<string, { statuses: Record<string, number>; ms_median: number }> = {};
  for (const depth of [10_000, 400_000]) {
    const answers = [];
    for (let i = 0; i < 3; i++)
      answers.push(await timed("/api/v2/feedback", { method: "PUT", headers, body: body(depth) }));
    single[depth] = {
      statuses: countBy(answers.map((a) => a.status)),
      ms_median: quantile(
        answers.map((a) => a.ms),
        0.5,
      ),
    };
  }
  const idle = await probeHealth(sleep(Math.min(5, seconds) * 1000));
  const deadline = performance.now() + seconds * 1000;
  const sent: number[] = [];
  const senders = Promise.all(
    Array.from({ length: 4 }, async () => {
      while (performance.now() < deadline) {
        sent.push((await timed("/api/v2/feedback", { method: "PUT", headers, body: body(400_000) })).status);
      }
    }),
  );
  const loaded = await probeHealth(senders);
  return {
    scenario: "nested-json",
    single,
    flood: { senders: 4, seconds, bodies: sent.length, statuses: countBy(sent) },
    health_idle_ms: { p50: quantile(idle.latencies, 0.5), p95: quantile(idle.latencies, 0.95) },
    health_under_flood_ms: { p50: quantile(loaded.latencies, 0.5), p95: quantile(loaded.latencies, 0.95) },
  };
}

async function smilesAbuse() {
  const attackers = await Promise.all([0, 1].map(() => userHeaders()));
  const systems = await Promise.all(
    attackers.map(async (headers) => {
      const created = await fetch(`${base}/api/v2/systems`, {
        method: "POST",
        headers,
        body: JSON.stringify({ name: `Drawn ${Math.random()}`, origin: "smiles" }),
      });
      return ((await created.json()) as { id: string }).id;
    }),
  );
  const victim = await userHeaders();
  const deadline = performance.now() + seconds * 1000;
  const attacks: number[] = [];
  const attacking = Promise.all(
    attackers.map(async (headers, i) => {
      for (let round = 0; performance.now() < deadline; round++) {
        for (const smiles of ["C".repeat(1999), "C".repeat(900 + (round % 50) + 50 * i)]) {
          const url = `/api/v2/systems/${systems[i]}/smiles`;
          attacks.push((await timed(url, { method: "POST", headers, body: JSON.stringify({ smiles }) })).status);
        }
      }
    }),
  );
  const victimAnswers: Array<{ status: number; ms: number }> = [];
  const victimLoop = (async () => {
    while (performance.now() < deadline) {
      const block = { type: "linear", name: "PE", data: { repeating_unit: "[*:1]CC[*:2]" } };
      victimAnswers.push(
        await timed("/api/v2/building_blocks", { method: "POST", headers: victim, body: JSON.stringify(block) }),
      );
    }
  })();
  const during = await probeHealth(Promise.all([attacking, victimLoop]));
  const after = (await timed("/api/health")).body;
  const faults = Number(/"faults":(\d+)/.exec(after)?.[1] ?? -1);
  return {
    scenario: "smiles-abuse",
    seconds,
    attacker_statuses: countBy(attacks),
    victim_statuses: countBy(victimAnswers.map((a) => a.status)),
    victim_ms: {
      p50: quantile(
        victimAnswers.map((a) => a.ms),
        0.5,
      ),
      p95: quantile(
        victimAnswers.map((a) => a.ms),
        0.95,
      ),
    },
    toolkit_faults: faults,
    health_degraded_during: `${during.degraded.filter(Boolean).length}/${during.degraded.length}`,
    health_degraded_after: smilesDegraded(after),
  };
}

for (const scenario of [nestedJson, smilesAbuse]) {
  console.log(JSON.stringify(await scenario()));
}
await testApp.close();
process.exit(0);
