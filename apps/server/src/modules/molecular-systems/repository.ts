import type { MolecularSystemData, MolecularSystemOrigin } from "@polyforge/contracts/molecular-systems";
import type { NotificationType } from "@polyforge/contracts/notifications";
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../platform/db/database";
import { publishNotification } from "../../platform/events/notifications";
import { type ClaimRequest, claimJob } from "../../platform/jobs/claim";
import { endedJob, interruptedTooOften, renewedLease } from "../../platform/jobs/table";
import type { SystemRow } from "../systems/queries";
import { type StructureJobKind, type StructureJobRow, structureJobs } from "./schema";

/** A system of origin upload or smiles keeps this shape in system_data (contracts). */
export function molecularData(row: Pick<SystemRow, "systemData">): MolecularSystemData {
  const data = row.systemData as Partial<MolecularSystemData>;
  return {
    status: typeof data.status === "string" ? data.status : "",
    smiles: data.smiles ?? null,
    file: data.file ?? null,
    file_size: data.file_size ?? null,
    upload_id: data.upload_id ?? null,
    structure: data.structure ?? null,
    problem: data.problem ?? null,
  };
}

export function initialData(origin: MolecularSystemOrigin): MolecularSystemData {
  return {
    status: origin === "upload" ? "pending_upload" : "pending",
    smiles: null,
    file: null,
    file_size: null,
    upload_id: null,
    structure: null,
    problem: null,
  };
}

/** SPEC §4: uploads and conversions push their own message types. */
export function statusMessageType(origin: string): NotificationType {
  return origin === "upload" ? "uploaded_system_status_updated" : "system_conversion_status_updated";
}

/** Pushes a status change to the owner's sockets (sent on commit inside a transaction). */
export async function notifySystemStatus(db: Db, row: SystemRow): Promise<void> {
  await publishNotification(db, row.ownerId, {
    message_type: statusMessageType(row.origin),
    system_id: row.id,
    status: molecularData(row).status,
  });
}

export async function insertStructureJob(
  db: Db,
  values: { systemId: string; ownerId: string; kind: StructureJobKind; input: Record<string, unknown> },
): Promise<StructureJobRow> {
  const [row] = await db.insert(structureJobs).values(values).returning();
  return row!;
}

/** Takes a queued job, or one whose runner's lease lapsed, for this runner: the shared claim
 * (atomic across runners, fair between users). */
export async function claimStructureJob(db: Db, request: ClaimRequest): Promise<StructureJobRow | undefined> {
  const job = await claimJob(
    db,
    { table: "structure_jobs", waiting: ["queued"], active: ["running"], set: sql`status = 'running'` },
    request,
  );
  if (!job) return undefined;
  const [row] = await db.select().from(structureJobs).where(eq(structureJobs.id, job.id));
  return row;
}

function ours(id: string, runnerId: string) {
  return and(eq(structureJobs.id, id), eq(structureJobs.leaseOwner, runnerId), eq(structureJobs.status, "running"));
}

export async function renewStructureJob(db: Db, id: string, runnerId: string, leaseMs: number): Promise<boolean> {
  const rows = await db
    .update(structureJobs)
    .set(renewedLease(leaseMs))
    .where(ours(id, runnerId))
    .returning({ id: structureJobs.id });
  return rows.length > 0;
}

/** Ends the job if this runner still holds it; false when it was taken back meanwhile. */
export async function finishStructureJob(db: Db, id: string, runnerId: string): Promise<boolean> {
  const rows = await db
    .update(structureJobs)
    .set({ status: "done", ...endedJob() })
    .where(ours(id, runnerId))
    .returning({ id: structureJobs.id });
  return rows.length > 0;
}

/** Back to the queue (the runner is shutting down). */
export async function releaseStructureJob(db: Db, id: string, runnerId: string): Promise<void> {
  await db
    .update(structureJobs)
    .set({ status: "queued", leaseOwner: null, leaseExpiresAt: null, updatedAt: sql`now()` })
    .where(ours(id, runnerId));
}

/** Jobs whose runners died `maxAttempts` times: ended, answered with their systems. */
export async function giveUpStructureJobs(db: Db, maxAttempts: number): Promise<StructureJobRow[]> {
  return db
    .update(structureJobs)
    .set({ status: "done", ...endedJob() })
    .where(interruptedTooOften(structureJobs, ["running"], maxAttempts))
    .returning();
}
