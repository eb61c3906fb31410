import { z } from "zod";
import { EXECUTION_STATUSES, type ExecutionStatus, SYSTEM_TYPES } from "./enums";
import { paginationQuery } from "./pagination";
import { systemResponse } from "./systems";

/** Processing of systems (SPEC §3 system_executions, §4 statuses and actions, §7 calls). */

/** A file the engine produced, kept in the file store and listed on its execution. */
export const resultFile = z.object({ name: z.string(), size: z.number().int() });
export type ResultFile = z.infer<typeof resultFile>;

/** The result files the system detail shows, which build-system lists beside its bundle: the
 * structure as built, the last structure of the run (after dynamics, else after minimisation), and
 * the energies. */
export const RESULT_VIEWER_FILES = {
  builtStructure: "system.pdb",
  finalStructures: ["final.pdb", "minimized.pdb"],
  energies: "energies.csv",
  /** The run's summary with its measured properties (issue 22). */
  report: "report.json",
} as const;

export const systemExecution = z.object({
  id: z.string(),
  status: z.enum(EXECUTION_STATUSES),
  /** 0–100 within the current stage group (building/parametrising, then MD). */
  progress: z.number(),
  stage: z.string().nullable(),
  seed: z.number().int().nullable(),
  versions: z.record(z.string(), z.string().nullable()),
  error_code: z.string().nullable(),
  error_message: z.string().nullable(),
  /** Why the cluster's scheduler keeps the job waiting (Slurm: Resources, Priority, …); null when
   * it runs here or is not waiting. */
  scheduler_reason: z.string().nullable().optional(),
  /** While dynamics run: nanoseconds simulated so far and in all, and the engine's estimate of the
   * wall time left in seconds (null until it has measured its speed). */
  simulated_ns: z.number().nonnegative().nullable().optional(),
  total_ns: z.number().positive().nullable().optional(),
  remaining_seconds: z.number().nonnegative().nullable().optional(),
  /** Something that happened to the run the owner should know, e.g. taken back and started again
   * after the server running it stopped. */
  notice: z.string().nullable().optional(),
  result_files: z.array(resultFile),
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  updated_at: z.string(),
});
export type SystemExecution = z.infer<typeof systemExecution>;

/** SPEC §3 System.potentials: each id, name, system_type — the catalogue's 'Potential - {name}'
 * rows. The whole potential (statuses, results) is GET /v2/systems/{id}/potentials/ (potentials.ts). */
export const potentialSummary = z.object({ id: z.string(), name: z.string(), system_type: z.string() });

/** GET /v2/systems and /v2/systems/{id}: a system with its potentials (oldest first) and its
 * executions, oldest first — the last one gives the current status, none means not submitted. */
export const systemWithExecutions = systemResponse.extend({
  potentials: z.array(potentialSummary),
  system_executions: z.array(systemExecution),
});
export type SystemWithExecutions = z.infer<typeof systemWithExecutions>;

export const systemsListQuery = paginationQuery.extend({
  type: z.enum(SYSTEM_TYPES).optional(),
  name: z.string().trim().optional(),
  /** Only the systems filed under this project (one of the caller's; an id that is not a UUID
   * answers the projects' own 400, so the format is documented, not checked here). */
  project_id: z.string().meta({ format: "uuid" }).optional(),
});

export const systemsList = z.object({
  data: z.array(systemWithExecutions),
  metadata: z.object({ page_num: z.number().int(), page_size: z.number().int(), num_records: z.number().int() }),
});

/** The current status of a system: its latest execution's, or not submitted. */
export function currentStatus(system: Pick<SystemWithExecutions, "system_executions">): ExecutionStatus {
  return system.system_executions.at(-1)?.status ?? "not_submitted";
}

/** SPEC §4 processing actions (polymer-builder systems only). */
export const STARTABLE_STATUSES: readonly ExecutionStatus[] = ["not_submitted", "error", "cancelled"];
export const CANCELLABLE_STATUSES: readonly ExecutionStatus[] = ["waiting_for_resources", "processing", "running"];

/** SPEC §4 display grouping of every status value the product shows. */
export const DISPLAY_GROUPS = [
  "not-submitted",
  "running",
  "processing",
  "waiting-for-resources",
  "completed",
  "error",
  "cancelled",
] as const;
export type DisplayGroup = (typeof DISPLAY_GROUPS)[number];

const DISPLAY_GROUP_OF: Record<string, DisplayGroup> = {
  not_submitted: "not-submitted",
  pending: "not-submitted",
  pending_upload: "not-submitted",
  running: "running",
  converting: "running",
  uploading: "running",
  pending_validation: "running",
  validating: "running",
  processing: "processing",
  waiting_for_resources: "waiting-for-resources",
  completed: "completed",
  converted: "completed",
  valid: "completed",
  error: "error",
  failed: "error",
  invalid: "error",
  cancelled: "cancelled",
};

/** An unknown status maps to not-submitted. */
export function displayGroup(status: string | null | undefined): DisplayGroup {
  return (status && DISPLAY_GROUP_OF[status]) || "not-submitted";
}
