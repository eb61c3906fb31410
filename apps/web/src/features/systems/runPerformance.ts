import { z } from "zod";

/** Where a run's time went and what ran it: report.json's `performance`, written by the engine
 * (workflow.py and simulate/run.py; the structure build, parametrisation, minimisation and
 * dynamics seconds, the engine, platform, threads and the dynamics' ns/day). Read tolerantly: a
 * field that is missing or of another shape is left out, so older results and other engines'
 * reports show what they have. */

const seconds = z.number().nonnegative().optional().catch(undefined);
const text = z.string().min(1).optional().catch(undefined);

const runPerformance = z.object({
  build_s: seconds,
  parametrisation_s: seconds,
  minimisation_s: seconds,
  dynamics_s: seconds,
  engine: text,
  minimisation_engine: text,
  platform: text,
  threads: z.number().int().positive().optional().catch(undefined),
  ns_per_day: z.number().positive().optional().catch(undefined),
});
export type RunPerformance = z.infer<typeof runPerformance>;

/** The stages in the order they run, as report.json names their seconds. */
export const RUN_STAGES = ["build_s", "parametrisation_s", "minimisation_s", "dynamics_s"] as const;

/** The performance in a report.json text; null when there is none (or nothing of it is readable). */
export function parseRunPerformance(reportJson: string): RunPerformance | null {
  let report: unknown;
  try {
    report = JSON.parse(reportJson);
  } catch {
    return null;
  }
  const raw = (report as { performance?: unknown } | null)?.performance;
  if (typeof raw !== "object" || raw === null) return null;
  const performance = runPerformance.parse(raw);
  return Object.values(performance).some((value) => value !== undefined) ? performance : null;
}

/** How the dynamics ran, stage by stage: report.json's `dynamics_stages`, each with the integrator,
 * thermostat and barostat of the engine that ran it (`method`, the bundle README's words). The
 * distinct ones in order, "NPT: …"; empty for a report without them (no dynamics, or older). */
export function dynamicsMethods(reportJson: string): string[] {
  let report: unknown;
  try {
    report = JSON.parse(reportJson);
  } catch {
    return [];
  }
  const stages = (report as { dynamics_stages?: unknown } | null)?.dynamics_stages;
  if (!Array.isArray(stages)) return [];
  const methods = stages.flatMap((stage: { ensemble?: unknown; method?: unknown } | null) =>
    typeof stage?.method === "string" && typeof stage.ensemble === "string"
      ? [`${stage.ensemble}: ${stage.method}`]
      : [],
  );
  return [...new Set(methods)];
}

/** Seconds as a stage's time: "0.4 s", "12.3 s", then minutes and seconds ("2 min 5 s"). */
export function stageTime(value: number): string {
  if (value < 60) return `${value.toFixed(1)} s`;
  const total = Math.round(value);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const rest = total % 60;
  return hours > 0 ? `${hours} h ${minutes} min` : `${minutes} min ${rest} s`;
}
