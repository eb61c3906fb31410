import type { ExecutionStatus } from "@polyforge/contracts/enums";
import type { SystemExecution } from "@polyforge/contracts/system-executions";
import { and, desc, eq, inArray, isNull, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { PgUpdateSetSource } from "drizzle-orm/pg-core";
import type { Db } from "../../platform/db/database";
import { publishNotification } from "../../platform/events/notifications";
import { type ClaimRequest, claimJob } from "../../platform/jobs/claim";
import { endedJob, interruptedTooOften, renewedLease } from "../../platform/jobs/table";
import { type SystemExecutionRow, systemExecutions } from "./schema";

/** A job still owned by a runner (or waiting for one). */
export const ACTIVE_STATUSES = ["waiting_for_resources", "processing", "running"] as const satisfies ExecutionStatus[];

export type ExecutionUpdate = PgUpdateSetSource<typeof systemExecutions>;

/** Pushes the execution's status to its owner; `notice` says something happened to the run (taken
 * back after a restart), which the app shows at once. */
export async function notifyStatus(db: Db, row: SystemExecutionRow, notice?: string): Promise<void> {
  await publishNotification(db, row.ownerId, {
    message_type: "system_execution_status_updated",
    system_id: row.systemId,
    execution_id: row.id,
    status: row.status,
    progress: row.progress,
    ...(notice ? { notice } : {}),
  });
}

export function executionResponse(row: SystemExecutionRow): SystemExecution {
  return {
    id: row.id,
    status: row.status,
    progress: row.progress,
    stage: row.stage,
    seed: row.seed,
    versions: row.versions,
    error_code: row.errorCode,
    error_message: row.errorMessage,
    scheduler_reason: row.schedulerReason,
    simulated_ns: row.simulatedNs,
    total_ns: row.totalNs,
    remaining_seconds: row.remainingSeconds,
    notice: row.notice,
    result_files: row.resultFiles,
    created_at: row.createdAt.toISOString(),
    started_at: row.startedAt?.toISOString() ?? null,
    finished_at: row.finishedAt?.toISOString() ?? null,
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The response's fields, each as its column (the response's keys are the columns' names). */
const RESPONSE_COLUMNS = {
  id: systemExecutions.id,
  status: systemExecutions.status,
  progress: systemExecutions.progress,
  stage: systemExecutions.stage,
  seed: systemExecutions.seed,
  versions: systemExecutions.versions,
  error_code: systemExecutions.errorCode,
  error_message: systemExecutions.errorMessage,
  scheduler_reason: systemExecutions.schedulerReason,
  simulated_ns: systemExecutions.simulatedNs,
  total_ns: systemExecutions.totalNs,
  remaining_seconds: systemExecutions.remainingSeconds,
  notice: systemExecutions.notice,
  result_files: systemExecutions.resultFiles,
  created_at: systemExecutions.createdAt,
  started_at: systemExecutions.startedAt,
  finished_at: systemExecutions.finishedAt,
  updated_at: systemExecutions.updatedAt,
} satisfies Record<keyof SystemExecution, unknown>;

/**
 * The executions of the system whose id is `systemId` (a column of the enclosing query), oldest
 * first, as one JSON array: the catalogue page and the detail ask for them in their own statement;
 * executionsFromJson turns it into responses.
 */
export function executionsJsonOf(systemId: SQLWrapper): SQL<unknown> {
  const fields = Object.entries(RESPONSE_COLUMNS).map(([key, column]) => sql`${sql.raw(`'${key}'`)}, ${column}`);
  return sql`(select coalesce(json_agg(json_build_object(${sql.join(fields, sql`, `)}) order by ${systemExecutions.createdAt}, ${systemExecutions.id}), '[]'::json) from ${systemExecutions} where ${systemExecutions.systemId} = ${systemId})`;
}

/** executionsJsonOf's array as responses: the timestamps as executionResponse writes them. */
export function executionsFromJson(value: unknown): SystemExecution[] {
  const list = (typeof value === "string" ? JSON.parse(value) : value) as Array<Record<string, unknown>>;
  const iso = (text: unknown) => (text === null ? null : new Date(text as string).toISOString());
  return list.map((item) => ({
    ...(item as unknown as SystemExecution),
    created_at: iso(item.created_at)!,
    started_at: iso(item.started_at),
    finished_at: iso(item.finished_at),
    updated_at: iso(item.updated_at)!,
  }));
}

export async function latestExecution(db: Db, systemId: string): Promise<SystemExecutionRow | undefined> {
  const [row] = await db
    .select()
    .from(systemExecutions)
    .where(eq(systemExecutions.systemId, systemId))
    .orderBy(desc(systemExecutions.createdAt), desc(systemExecutions.id))
    .limit(1);
  return row;
}

export async function insertExecution(db: Db, systemId: string, ownerId: string): Promise<SystemExecutionRow> {
  const [row] = await db.insert(systemExecutions).values({ systemId, ownerId }).returning();
  return row!;
}

/** Marks an active execution cancelled; answers undefined when it was no longer active. */
export async function markCancelled(db: Db, id: string): Promise<SystemExecutionRow | undefined> {
  const [row] = await db
    .update(systemExecutions)
    .set({
      status: "cancelled",
      leaseOwner: null,
      leaseExpiresAt: null,
      finishedAt: sql`now()`,
      updatedAt: sql`now()`,
    })
    .where(and(eq(systemExecutions.id, id), inArray(systemExecutions.status, ACTIVE_STATUSES)))
    .returning();
  return row;
}

// --- The processing queue's rows (processing.ts) -------------------------------------------------

/**
 * Takes a waiting job, or one whose runner's lease lapsed, for this runner: the shared claim
 * (atomic across runners, fair between users), moving it to `claimedStatus`. A job already
 * submitted to a scheduler (its runner stopped) keeps its status and progress: the claimer follows
 * it again. Answers the row and the runner it was taken back from, if any.
 */
export async function claimExecution(
  db: Db,
  request: ClaimRequest,
  claimedStatus: ExecutionStatus,
): Promise<{ row: SystemExecutionRow; takenBackFrom: string | null } | undefined> {
  const job = await claimJob(
    db,
    {
      table: "system_executions",
      waiting: ["waiting_for_resources"],
      active: ["processing", "running"],
      set: sql`
          status = CASE WHEN scheduler_job_id IS NULL THEN ${claimedStatus} ELSE status END,
          progress = CASE WHEN scheduler_job_id IS NULL THEN 0 ELSE progress END,
          stage = CASE WHEN scheduler_job_id IS NULL THEN NULL ELSE stage END,
          simulated_ns = NULL, total_ns = NULL, remaining_seconds = NULL`,
    },
    request,
  );
  if (!job) return undefined;
  const [row] = await db.select().from(systemExecutions).where(eq(systemExecutions.id, job.id));
  return row && { row, takenBackFrom: job.takenBackFrom };
}

function ours(id: string, runnerId: string) {
  return and(
    eq(systemExecutions.id, id),
    eq(systemExecutions.leaseOwner, runnerId),
    inArray(systemExecutions.status, ACTIVE_STATUSES),
  );
}

/** Extends the runner's lease; false when the job is no longer its (cancelled, taken back). */
export async function renewExecutionLease(db: Db, id: string, runnerId: string, leaseMs: number): Promise<boolean> {
  const rows = await db
    .update(systemExecutions)
    .set(renewedLease(leaseMs))
    .where(ours(id, runnerId))
    .returning({ id: systemExecutions.id });
  return rows.length > 0;
}

/** Writes the row while this runner still holds the job; answers it, or undefined. */
export async function updateHeldExecution(
  db: Db,
  id: string,
  runnerId: string,
  values: ExecutionUpdate,
): Promise<SystemExecutionRow | undefined> {
  const [row] = await db
    .update(systemExecutions)
    .set({ ...values, updatedAt: sql`now()` })
    .where(ours(id, runnerId))
    .returning();
  return row;
}

/** Says on the execution what happened to the run (while this runner holds it). */
export async function setNotice(
  db: Db,
  id: string,
  runnerId: string,
  notice: string,
): Promise<SystemExecutionRow | undefined> {
  const [row] = await db
    .update(systemExecutions)
    .set({ notice, updatedAt: sql`now()` })
    .where(ours(id, runnerId))
    .returning();
  return row;
}

export async function noticeOf(db: Db, id: string): Promise<string | null> {
  const [row] = await db
    .select({ notice: systemExecutions.notice })
    .from(systemExecutions)
    .where(eq(systemExecutions.id, id));
  return row?.notice ?? null;
}

export async function statusOf(db: Db, id: string): Promise<ExecutionStatus | undefined> {
  const [row] = await db
    .select({ status: systemExecutions.status })
    .from(systemExecutions)
    .where(eq(systemExecutions.id, id));
  return row?.status;
}

/** Ends in error, with these values, the jobs whose runners died `maxAttempts` times; a job on a
 * scheduler is left alone (it outlives its runners; a job the scheduler lost ends on its own). */
export async function giveUpInterrupted(
  db: Db,
  maxAttempts: number,
  values: Pick<ExecutionUpdate, "errorCode" | "errorMessage">,
): Promise<SystemExecutionRow[]> {
  return db
    .update(systemExecutions)
    .set({ status: "error", ...values, ...endedJob() })
    .where(
      and(
        interruptedTooOften(systemExecutions, ["processing", "running"], maxAttempts),
        isNull(systemExecutions.schedulerJobId),
      ),
    )
    .returning();
}
