import type { ExecutionStatus } from "@polyforge/contracts/enums";
import type { SystemExecution } from "@polyforge/contracts/system-executions";
import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
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

/** Every execution of these systems, oldest first, grouped by system. */
export async function executionsOfSystems(db: Db, systemIds: string[]): Promise<Map<string, SystemExecutionRow[]>> {
  const bySystem = new Map<string, SystemExecutionRow[]>();
  if (systemIds.length === 0) return bySystem;
  const rows = await db
    .select()
    .from(systemExecutions)
    .where(inArray(systemExecutions.systemId, systemIds))
    .orderBy(asc(systemExecutions.createdAt), asc(systemExecutions.id));
  for (const row of rows) {
    const list = bySystem.get(row.systemId) ?? [];
    list.push(row);
    bySystem.set(row.systemId, list);
  }
  return bySystem;
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
