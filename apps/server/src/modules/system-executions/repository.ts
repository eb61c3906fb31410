import type { ExecutionStatus } from "@polyforge/contracts/enums";
import type { SystemExecution } from "@polyforge/contracts/system-executions";
import { and, desc, eq, inArray, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { Db } from "../../platform/db/database";
import { type SystemExecutionRow, systemExecutions } from "./schema";

/** A job still owned by a runner (or waiting for one). */
export const ACTIVE_STATUSES = ["waiting_for_resources", "processing", "running"] as const satisfies ExecutionStatus[];

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
 * first, as one JSON array: the catalogue page and the detail ask for them in their own statement
 * (issue 27).
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
