import type { ExecutionStatus } from "@polyforge/contracts/enums";
import type { FileUploadStatus } from "@polyforge/contracts/molecular-systems";
import type { NotificationType } from "@polyforge/contracts/notifications";
import {
  type AntechamberPotential,
  antechamberPotential,
  type GeneratedPotentialResult,
  generatedPotentialResult,
  type PotentialResponse,
  topologySummary,
} from "@polyforge/contracts/potentials";
import { and, asc, eq, inArray, lt, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { PgUpdateSetSource } from "drizzle-orm/pg-core";
import type { Db } from "../../platform/db/database";
import { publishNotification } from "../../platform/events/notifications";
import { type ClaimRequest, claimJob } from "../../platform/jobs/claim";
import { endedJob, interruptedTooOften, renewedLease } from "../../platform/jobs/table";
import { type PotentialRow, potentials } from "./schema";

export type PotentialUpdate = PgUpdateSetSource<typeof potentials>;

/** Statuses of a row a runner works on (the claim takes them back once their lease lapsed). */
export const ACTIVE_STATUSES = ["processing", "running", "validating"] as const;
/** Statuses of a row waiting for a runner. */
export const WAITING_STATUSES = ["waiting_for_resources", "pending_validation"] as const;
/** A row a runner may hold: waiting ones too (a Slurm job waits there for its resources). */
export const HELD_STATUSES = [...WAITING_STATUSES, ...ACTIVE_STATUSES] as const;

/** SPEC §4: generated potentials push the execution message, uploaded ones their own. */
export function messageType(origin: string): NotificationType {
  return origin === "generate" ? "system_execution_status_updated" : "uploaded_potential_status_updated";
}

/** Pushes a potential's status to its owner's sockets (sent on commit inside a transaction). */
export async function notifyPotential(db: Db, row: PotentialRow, status: string = row.status): Promise<void> {
  await publishNotification(db, row.ownerId, {
    message_type: messageType(row.origin),
    system_id: row.systemId,
    potential_id: row.id,
    status,
    progress: row.progress,
  });
}

function iso(date: Date | null): string | null {
  return date ? date.toISOString() : null;
}

/** The engine's summary as the contract's result (fields an engine does not report get their
 * "unknown" value rather than failing the read). */
export function generatedResult(result: Record<string, unknown> | null): GeneratedPotentialResult | null {
  if (!result) return null;
  const parsed = generatedPotentialResult.safeParse(result);
  return parsed.success ? parsed.data : null;
}

/** A row as every potentials call answers it (contracts potentialResponse). */
export function potentialResponse(row: PotentialRow): PotentialResponse {
  const generated = row.origin === "generate";
  const parameters = antechamberPotential.safeParse(row.parameters);
  const topology = topologySummary.safeParse(row.result);
  return {
    id: row.id,
    system_id: row.systemId,
    name: row.name,
    description: row.description,
    origin: row.origin,
    system_type: row.systemType,
    is_draft: !generated && (row.status === "pending_upload" || row.status === "uploading"),
    antechamber_potential: generated && parameters.success ? (parameters.data as AntechamberPotential) : null,
    potential_execution: generated
      ? {
          status: row.status as ExecutionStatus,
          progress: row.progress,
          stage: row.stage,
          error_code: row.errorCode,
          error_message: row.errorMessage,
          scheduler_reason: row.schedulerReason,
          result_files: row.resultFiles,
          result: row.status === "completed" ? generatedResult(row.result) : null,
          started_at: iso(row.startedAt),
          finished_at: iso(row.finishedAt),
        }
      : null,
    uploaded_potential: generated
      ? null
      : {
          status: row.status as FileUploadStatus,
          file: row.file,
          file_size: row.fileSize,
          upload_id: row.uploadId,
          problem: row.problem ?? null,
          topology: row.status === "valid" && topology.success ? topology.data : null,
        },
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export async function insertPotential(db: Db, values: typeof potentials.$inferInsert): Promise<PotentialRow> {
  const [row] = await db.insert(potentials).values(values).returning();
  return row!;
}

/** The owner's potential of this system. */
export async function findPotential(
  db: Db,
  ownerId: string,
  systemId: string,
  id: string,
): Promise<PotentialRow | undefined> {
  const [row] = await db
    .select()
    .from(potentials)
    .where(and(eq(potentials.id, id), eq(potentials.systemId, systemId), eq(potentials.ownerId, ownerId)));
  return row;
}

export async function findPotentialById(db: Db, id: string): Promise<PotentialRow | undefined> {
  const [row] = await db.select().from(potentials).where(eq(potentials.id, id));
  return row;
}

/** The potentials of these systems, oldest first. */
export async function potentialsOfSystems(db: Db, systemIds: string[]): Promise<PotentialRow[]> {
  if (systemIds.length === 0) return [];
  return db
    .select()
    .from(potentials)
    .where(inArray(potentials.systemId, systemIds))
    .orderBy(asc(potentials.createdAt), asc(potentials.id));
}

/**
 * The catalogue's summaries ({id, name, system_type}) of the potentials of the system whose id is
 * `systemId` (a column of the enclosing query), oldest first, as one JSON array.
 */
export function potentialSummariesJsonOf(systemId: SQLWrapper): SQL<unknown> {
  return sql`(select coalesce(json_agg(json_build_object('id', ${potentials.id}, 'name', ${potentials.name}, 'system_type', ${potentials.systemType}) order by ${potentials.createdAt}, ${potentials.id}), '[]'::json) from ${potentials} where ${potentials.systemId} = ${systemId})`;
}

/** The system's draft (an uploaded potential still waiting for its file), if any. */
export async function findDraft(db: Db, systemId: string): Promise<PotentialRow | undefined> {
  const [row] = await db
    .select()
    .from(potentials)
    .where(
      and(
        eq(potentials.systemId, systemId),
        eq(potentials.origin, "upload"),
        inArray(potentials.status, ["pending_upload", "uploading"]),
      ),
    );
  return row;
}

/** Writes the row only if it is still in one of these statuses (and on this upload, when given):
 * two racing calls cannot both move it. Answers the new row, or undefined. */
export async function updatePotential(
  db: Db,
  id: string,
  values: PotentialUpdate,
  condition: { fromStatuses: readonly string[]; uploadId?: string; leaseOwner?: string },
): Promise<PotentialRow | undefined> {
  const conditions: SQL[] = [eq(potentials.id, id), inArray(potentials.status, [...condition.fromStatuses])];
  if (condition.uploadId !== undefined) conditions.push(eq(potentials.uploadId, condition.uploadId));
  if (condition.leaseOwner !== undefined) conditions.push(eq(potentials.leaseOwner, condition.leaseOwner));
  const [row] = await db
    .update(potentials)
    .set({ ...values, updatedAt: sql`now()` })
    .where(and(...conditions))
    .returning();
  return row;
}

export async function deletePotential(db: Db, id: string): Promise<PotentialRow | undefined> {
  const [row] = await db.delete(potentials).where(eq(potentials.id, id)).returning();
  return row;
}

/** Takes a waiting row, or one whose runner's lease lapsed, for this runner (the shared claim): a
 * topology to validate moves to validating, a generation to `started`. Answers the row. */
export async function claimPotential(
  db: Db,
  request: ClaimRequest,
  started: "processing" | "waiting_for_resources",
): Promise<PotentialRow | undefined> {
  const claimed = await claimJob(
    db,
    {
      table: "potentials",
      waiting: WAITING_STATUSES,
      active: ACTIVE_STATUSES,
      set: sql`status = CASE status WHEN 'pending_validation' THEN 'validating' WHEN 'waiting_for_resources' THEN ${started} ELSE status END,
          progress = 0, stage = NULL, error_code = NULL, error_message = NULL`,
    },
    request,
  );
  return claimed && findPotentialById(db, claimed.id);
}

/** Extends a runner's lease; false when the row is no longer its (cancelled, deleted, taken back). */
export async function renewLease(db: Db, id: string, runnerId: string, leaseMs: number): Promise<boolean> {
  const rows = await db
    .update(potentials)
    .set(renewedLease(leaseMs))
    .where(and(eq(potentials.id, id), eq(potentials.leaseOwner, runnerId), inArray(potentials.status, HELD_STATUSES)))
    .returning({ id: potentials.id });
  return rows.length > 0;
}

/** Rows whose runners died `maxAttempts` times: ended in error with this message. */
export async function giveUpInterrupted(db: Db, maxAttempts: number): Promise<PotentialRow[]> {
  const message = `This was interrupted ${maxAttempts} times (the server running it stopped). Try again.`;
  return db
    .update(potentials)
    .set({
      status: "error",
      errorCode: "INTERRUPTED",
      errorMessage: message,
      problem: sql`CASE WHEN ${potentials.origin} = 'upload' THEN ${JSON.stringify({ code: "INTERRUPTED", message, line: null })}::jsonb ELSE ${potentials.problem} END`,
      ...endedJob(),
    })
    .where(interruptedTooOften(potentials, ACTIVE_STATUSES, maxAttempts))
    .returning();
}

/** Marks a potential's .top upload active now (updated_at), while it is still that upload. */
export async function markUploadActive(db: Db, id: string, uploadId: string): Promise<void> {
  await db
    .update(potentials)
    .set({ updatedAt: sql`now()` })
    .where(and(eq(potentials.id, id), eq(potentials.status, "uploading"), eq(potentials.uploadId, uploadId)));
}

/** Uploaded potentials whose upload was last marked active before `before`. */
export async function idleUploadingPotentials(db: Db, before: Date): Promise<PotentialRow[]> {
  return db
    .select()
    .from(potentials)
    .where(and(eq(potentials.status, "uploading"), eq(potentials.origin, "upload"), lt(potentials.updatedAt, before)));
}

/** The system's potentials whose .top upload is in progress. */
export async function uploadingPotentialsOfSystem(db: Db, systemId: string): Promise<PotentialRow[]> {
  return db
    .select()
    .from(potentials)
    .where(and(eq(potentials.systemId, systemId), eq(potentials.status, "uploading")));
}
