import { EXECUTION_STATUSES } from "@polyforge/contracts/enums";
import type { ResultFile } from "@polyforge/contracts/system-executions";
import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, real, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { jobColumns } from "../../platform/jobs/table";
import { systems } from "../systems/schema";

/**
 * Processing runs of a system (SPEC §3 system_executions, ARCHITECTURE §7). A row is the job: start
 * inserts it `waiting_for_resources`; a job runner claims it with a lease (`lease_owner`,
 * `lease_expires_at`, renewed by heartbeat) and moves it to `completed`, `error` or `cancelled`.
 */
export const systemExecutions = pgTable(
  "system_executions",
  {
    ...jobColumns(),
    systemId: uuid("system_id")
      .notNull()
      .references(() => systems.id, { onDelete: "cascade" }),
    status: text("status", { enum: EXECUTION_STATUSES }).notNull().default("waiting_for_resources"),
    progress: real("progress").notNull().default(0),
    stage: text("stage"),
    seed: integer("seed"),
    versions: jsonb("versions").$type<Record<string, string | null>>().notNull().default({}),
    errorCode: text("error_code"),
    errorMessage: text("error_message"),
    resultFiles: jsonb("result_files").$type<ResultFile[]>().notNull().default([]),
    /** The scheduler's job id (Slurm executor): a restarted server follows that job again. */
    schedulerJobId: text("scheduler_job_id"),
    /** Why the scheduler keeps the job waiting (Slurm's reason: Resources, Priority, …). */
    schedulerReason: text("scheduler_reason"),
    /** Dynamics so far: simulated ns, ns in all, and the engine's estimate of the wall time left. */
    simulatedNs: real("simulated_ns"),
    totalNs: real("total_ns"),
    remainingSeconds: real("remaining_seconds"),
    /** What happened to the run that the owner should know (taken back after a restart…). */
    notice: text("notice"),
  },
  (t) => [
    index("system_executions_system_idx").on(t.systemId, t.createdAt),
    index("system_executions_claim_idx").on(t.status, t.createdAt),
    // The jobs each user holds, counted by every claim (fair share of the slots).
    index("system_executions_held_idx").on(t.ownerId).where(sql`${t.leaseOwner} IS NOT NULL`),
    // When each user's last job started, read by every claim (users take turns).
    index("system_executions_served_idx").on(t.ownerId, t.startedAt),
    // At most one active job per system: a second quick start cannot insert another.
    uniqueIndex("system_executions_one_active_per_system")
      .on(t.systemId)
      .where(sql`${t.status} IN ('waiting_for_resources', 'processing', 'running')`),
  ],
);

export type SystemExecutionRow = typeof systemExecutions.$inferSelect;
