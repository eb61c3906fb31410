import type { Readable } from "node:stream";
import { SystemErrors } from "@polyforge/contracts/errors";
import { DEFAULT_JOB_LIMITS, type JobLimits } from "@polyforge/contracts/job-limits";
import {
  CANCELLABLE_POTENTIAL_STATUSES,
  type CreatePotentialBody,
  DRAFT_UPLOAD_STATUSES,
  type PotentialResponse,
  potentialForceFieldsFor,
} from "@polyforge/contracts/potentials";
import type { SystemWithExecutions } from "@polyforge/contracts/system-executions";
import { sanitizeSystemName } from "@polyforge/contracts/systems";
import {
  fileExtension,
  type UploadBeginBody,
  type UploadCompleteBody,
  type UploadedPart,
} from "@polyforge/contracts/uploads";
import type { FastifyBaseLogger } from "fastify";
import type { AuthenticatedUser } from "../../platform/auth/user";
import type { Db } from "../../platform/db/database";
import { isUniqueViolation } from "../../platform/db/errors";
import { AppError } from "../../platform/errors";
import { requireUuid } from "../../platform/ids";
import type { FileStore } from "../../platform/storage/file-store";
import {
  checkPartList,
  endUploads,
  idleUploadHorizon,
  multipartApiError,
  requirePartBytes,
  type StoredUpload,
  uploadActivityStale,
} from "../../platform/storage/multipart";
import { type PotentialStructure, structureForPotentials } from "../molecular-systems/service";
import {
  deletePotential as deleteRow,
  findDraft,
  findPotential,
  idleUploadingPotentials,
  insertPotential,
  markUploadActive,
  notifyPotential,
  potentialResponse,
  potentialsOfSystems,
  updatePotential,
  uploadingPotentialsOfSystem,
} from "./repository";
import type { PotentialRow } from "./schema";

/** What the potentials calls need besides the database. */
export interface PotentialsDeps {
  db: Db;
  store: FileStore;
  logger: FastifyBaseLogger;
  limits?: JobLimits;
}

/** Where a potential's files live in the file store: its .top as uploaded, the generation's results. */
export function potentialKey(potentialId: string, name: string): string {
  return `potentials/${potentialId}/${name}`;
}
export function topologyKey(potentialId: string): string {
  return potentialKey(potentialId, "upload.top");
}

function notFound(id: string): AppError {
  return new AppError(404, SystemErrors.VALIDATE_POTENTIAL_NOT_FOUND, { id });
}

/** The caller's potential of the caller's system: another user's system or potential, or one of
 * another system, answers 404. */
async function requirePotential(
  db: Db,
  user: AuthenticatedUser,
  systemId: string,
  id: string,
): Promise<{ structure: PotentialStructure; row: PotentialRow }> {
  const structure = await structureForPotentials(db, user, systemId);
  requireUuid(id, SystemErrors.VALIDATE_POTENTIAL_INVALID_ID);
  const row = await findPotential(db, user.id, structure.system.id, id);
  if (!row) throw notFound(id);
  return { structure, row };
}

/** The caller's system whose potentials a call names: another user's answers 404. */
export async function requirePotentialsSystem(db: Db, user: AuthenticatedUser, systemId: string): Promise<void> {
  await structureForPotentials(db, user, systemId);
}

/** GET /systems/{id}/potentials/: the system's potentials, oldest first. */
export async function listPotentials(
  db: Db,
  user: AuthenticatedUser,
  systemId: string,
): Promise<{ data: PotentialResponse[] }> {
  const { system } = await structureForPotentials(db, user, systemId);
  return { data: (await potentialsOfSystems(db, [system.id])).map(potentialResponse) };
}

export async function getPotential(
  db: Db,
  user: AuthenticatedUser,
  systemId: string,
  id: string,
): Promise<PotentialResponse> {
  return potentialResponse((await requirePotential(db, user, systemId, id)).row);
}

/** The potentials of each system, asked in the catalogue's and the detail's own statement. */
export { potentialSummariesJsonOf } from "./repository";

/** potentialSummariesJsonOf's array, as the catalogue and the detail show it. */
export function potentialSummariesFromJson(value: unknown): SystemWithExecutions["potentials"] {
  return (typeof value === "string" ? JSON.parse(value) : value) as SystemWithExecutions["potentials"];
}

function existingDraft(): AppError {
  return new AppError(409, SystemErrors.CREATE_POTENTIAL_EXISTING_DRAFT, {
    message: "Finish your draft potential before creating a new one",
  });
}

/**
 * POST /systems/{id}/potentials/: a generated potential is queued for a runner at once
 * (waiting_for_resources); an uploaded one waits for its .top (pending_upload, the system's one
 * draft). The structure must be validated (file) or converted (SMILES); the organization decides the
 * force fields (SPEC §6); the minimisation steps are held to the server's job limit.
 */
export async function createPotential(
  deps: PotentialsDeps,
  user: AuthenticatedUser,
  systemId: string,
  body: CreatePotentialBody,
): Promise<PotentialResponse> {
  const { db } = deps;
  const structure = await structureForPotentials(db, user, systemId);
  if (!structure.ready) {
    throw new AppError(409, SystemErrors.CREATE_POTENTIAL_STRUCTURE_NOT_READY, { status: structure.status });
  }
  const { system } = structure;
  const base = {
    systemId: system.id,
    ownerId: user.id,
    name: body.name,
    sanitizedName: sanitizeSystemName(body.name),
    description: body.description,
    origin: body.origin,
    systemType: system.type,
  };
  let values: Parameters<typeof insertPotential>[1];
  if (body.origin === "generate") {
    const allowed = potentialForceFieldsFor(user.organization);
    if (!allowed.includes(body.force_field)) {
      throw new AppError(400, SystemErrors.CREATE_POTENTIAL_FORCE_FIELD_NOT_ALLOWED, {
        force_field: body.force_field,
        allowed: allowed.join(", "),
      });
    }
    const maxSteps = (deps.limits ?? DEFAULT_JOB_LIMITS).maxMinimizationSteps;
    if (body.minimization_steps > maxSteps) {
      throw new AppError(400, SystemErrors.VALIDATE_JOB_LIMIT, {
        field: "minimization_steps",
        message: `Minimization can have at most ${maxSteps.toLocaleString("en-US")} steps.`,
      });
    }
    values = {
      ...base,
      status: "waiting_for_resources",
      parameters: {
        force_field: body.force_field,
        charge: body.charge,
        minimization_steps: body.minimization_steps,
      },
      // The structure as it is now: the job reads this file even if the system changes later.
      input: { key: structure.key, file: structure.fileName, extension: fileExtension(structure.fileName) },
    };
  } else {
    values = { ...base, status: "pending_upload", input: { key: structure.key, file: structure.fileName } };
  }
  try {
    return potentialResponse(
      await db.transaction(async (tx) => {
        if (body.origin === "upload" && (await findDraft(tx, system.id))) throw existingDraft();
        const row = await insertPotential(tx, values);
        await notifyPotential(tx, row);
        return row;
      }),
    );
  } catch (error) {
    if (isUniqueViolation(error)) throw existingDraft();
    throw error;
  }
}

/**
 * DELETE /systems/{id}/potentials/{potentialId}: the potential and its files go. A generation in
 * progress stops: the row is gone, so the runner holding it loses its lease (its engine is killed at
 * the next heartbeat, at once when it runs in this process: the caller cancels it on the runner).
 */
export async function removePotential(
  deps: PotentialsDeps,
  user: AuthenticatedUser,
  systemId: string,
  id: string,
): Promise<PotentialRow> {
  const { db, store } = deps;
  const { row } = await requirePotential(db, user, systemId, id);
  const deleted = await db.transaction(async (tx) => {
    const gone = await deleteRow(tx, row.id);
    if (gone) await notifyPotential(tx, gone, "deleted");
    return gone;
  });
  if (!deleted) throw notFound(id);
  if (deleted.uploadId && deleted.status === "uploading") {
    await store.abortMultipartUpload(topologyKey(deleted.id), deleted.uploadId).catch(() => undefined);
  }
  await store.removePrefix(potentialKey(deleted.id, "")).catch((err: unknown) => {
    deps.logger.warn({ err, potentialId: deleted.id }, "removing a deleted potential's files failed");
  });
  return deleted;
}

/** DELETE …/potentials/{potentialId}/process/cancel: a waiting or running generation ends
 * cancelled; the caller stops it on the runner (another runner learns it at its heartbeat). */
export async function cancelGeneration(
  db: Db,
  user: AuthenticatedUser,
  systemId: string,
  id: string,
): Promise<PotentialResponse> {
  const { row } = await requirePotential(db, user, systemId, id);
  const notRunning = (status: string) => new AppError(409, SystemErrors.CANCEL_POTENTIAL_NOT_RUNNING, { status });
  if (row.origin !== "generate")
    throw new AppError(409, SystemErrors.VALIDATE_ORIGIN_NOT_ALLOWED, { origin: "upload" });
  if (!CANCELLABLE_POTENTIAL_STATUSES.includes(row.status as (typeof CANCELLABLE_POTENTIAL_STATUSES)[number])) {
    throw notRunning(row.status);
  }
  const cancelled = await db.transaction(async (tx) => {
    const moved = await updatePotential(
      tx,
      row.id,
      { status: "cancelled", errorCode: null, errorMessage: null, finishedAt: new Date() },
      { fromStatuses: CANCELLABLE_POTENTIAL_STATUSES },
    );
    if (moved) await notifyPotential(tx, moved);
    return moved;
  });
  if (!cancelled) throw notRunning("changed");
  return potentialResponse(cancelled);
}

/** A system archived (DELETE /systems/{id}): its waiting or running generations end cancelled and
 * are pushed, in the caller's transaction. Answers their ids: the caller stops them on the runner
 * (another runner learns it at its heartbeat), as for a cancelled generation. */
export async function cancelGenerationsOfSystem(db: Db, systemId: string): Promise<string[]> {
  const cancelled: string[] = [];
  for (const row of await potentialsOfSystems(db, [systemId])) {
    if (row.origin !== "generate") continue;
    if (!CANCELLABLE_POTENTIAL_STATUSES.includes(row.status as (typeof CANCELLABLE_POTENTIAL_STATUSES)[number]))
      continue;
    const moved = await updatePotential(
      db,
      row.id,
      { status: "cancelled", errorCode: null, errorMessage: null, finishedAt: new Date() },
      { fromStatuses: CANCELLABLE_POTENTIAL_STATUSES },
    );
    if (!moved) continue;
    await notifyPotential(db, moved);
    cancelled.push(moved.id);
  }
  return cancelled;
}

// --- The .top upload: the multipart protocol of structure files (ARCHITECTURE §7b) -----------------

function uploadFailed(status: number, args: Record<string, unknown>): AppError {
  return new AppError(status, SystemErrors.UPLOAD_POTENTIAL_FAILED, args);
}

async function requireUploadPotential(db: Db, user: AuthenticatedUser, systemId: string, id: string) {
  const { row } = await requirePotential(db, user, systemId, id);
  if (row.origin !== "upload")
    throw new AppError(409, SystemErrors.VALIDATE_ORIGIN_NOT_ALLOWED, { origin: row.origin });
  return row;
}

/** POST …/upload/begin: a multipart upload of the .top (extension and 4000 MB checked by the
 * body's contract). Only the draft takes a file: a potential whose file is complete is locked
 * (SPEC: a saved uploaded potential is locked). An upload in progress is replaced. */
export async function beginTopologyUpload(
  deps: PotentialsDeps,
  user: AuthenticatedUser,
  systemId: string,
  id: string,
  body: UploadBeginBody,
): Promise<{ upload_id: string }> {
  const { db, store } = deps;
  const row = await requireUploadPotential(db, user, systemId, id);
  if (!DRAFT_UPLOAD_STATUSES.includes(row.status as (typeof DRAFT_UPLOAD_STATUSES)[number])) {
    throw uploadFailed(409, { status: row.status });
  }
  const key = topologyKey(row.id);
  let uploadId: string;
  try {
    uploadId = await store.createMultipartUpload(key, body.file_size);
  } catch (err) {
    deps.logger.error({ err, potentialId: row.id }, "starting a topology upload failed");
    throw uploadFailed(500, { reason: "store" });
  }
  const moved = await db.transaction(async (tx) => {
    const next = await updatePotential(
      tx,
      row.id,
      { status: "uploading", file: body.file, fileSize: body.file_size, uploadId, problem: null, result: null },
      { fromStatuses: [row.status], ...(row.uploadId ? { uploadId: row.uploadId } : {}) },
    );
    if (next) await notifyPotential(tx, next);
    return next;
  });
  if (!moved) {
    await store.abortMultipartUpload(key, uploadId).catch(() => undefined);
    throw uploadFailed(409, { status: "changed" });
  }
  if (row.status === "uploading" && row.uploadId) {
    await store.abortMultipartUpload(key, row.uploadId).catch((err: unknown) => {
      deps.logger.warn({ err, potentialId: row.id }, "dropping a replaced topology upload failed");
    });
  }
  return { upload_id: uploadId };
}

async function requireUploading(db: Db, user: AuthenticatedUser, systemId: string, id: string, uploadId: string) {
  const row = await requireUploadPotential(db, user, systemId, id);
  if (row.status !== "uploading" || row.uploadId !== uploadId) {
    throw new AppError(404, SystemErrors.VALIDATE_SYSTEM_DATA_NOT_FOUND, { upload_id: uploadId, status: row.status });
  }
  return row;
}

/** GET …/upload/upload_url: where to PUT one part. */
export async function topologyPartUrl(
  deps: PotentialsDeps,
  user: AuthenticatedUser,
  systemId: string,
  id: string,
  uploadId: string,
  partNumber: number,
): Promise<{ url: string }> {
  const row = await requireUploading(deps.db, user, systemId, id, uploadId);
  const partBytes = requirePartBytes(row.fileSize ?? 0, partNumber);
  // Each part asks for its URL: the upload is active (the sweep of idle uploads reads this).
  if (uploadActivityStale(row.updatedAt)) await markUploadActive(deps.db, row.id, uploadId);
  return { url: await deps.store.partUploadUrl(topologyKey(row.id), uploadId, partNumber, partBytes) };
}

/** GET …/upload/parts: the parts stored so far, so a client resumes an upload. */
export async function topologyParts(
  deps: PotentialsDeps,
  user: AuthenticatedUser,
  systemId: string,
  id: string,
  uploadId: string,
): Promise<{ parts: UploadedPart[] }> {
  const row = await requireUploading(deps.db, user, systemId, id, uploadId);
  try {
    return { parts: await deps.store.listParts(topologyKey(row.id), uploadId) };
  } catch (error) {
    throw multipartApiError(error, SystemErrors.UPLOAD_POTENTIAL_FAILED);
  }
}

/** POST …/upload/complete: assembles the .top and queues its check against the system's structure
 * (pending_validation; validate-topology). */
export async function completeTopologyUpload(
  deps: PotentialsDeps,
  user: AuthenticatedUser,
  systemId: string,
  id: string,
  body: UploadCompleteBody,
): Promise<PotentialResponse> {
  const { db, store } = deps;
  const row = await requireUploading(db, user, systemId, id, body.upload_id);
  const key = topologyKey(row.id);
  try {
    const ordered = checkPartList(body.parts, await store.listParts(key, body.upload_id), row.fileSize ?? 0);
    await store.completeMultipartUpload(key, body.upload_id, ordered);
  } catch (error) {
    throw multipartApiError(error, SystemErrors.UPLOAD_POTENTIAL_FAILED);
  }
  const moved = await db.transaction(async (tx) => {
    const next = await updatePotential(
      tx,
      row.id,
      { status: "pending_validation", input: { ...row.input, topology_key: key }, attempts: 0 },
      { fromStatuses: ["uploading"], uploadId: body.upload_id },
    );
    if (next) await notifyPotential(tx, next);
    return next;
  });
  if (!moved) throw uploadFailed(409, { status: "changed" });
  return potentialResponse(moved);
}

/** POST …/upload/cancel: drops the parts; the potential waits for a file again. A second cancel
 * answers the same. */
export async function cancelTopologyUpload(
  deps: PotentialsDeps,
  user: AuthenticatedUser,
  systemId: string,
  id: string,
  uploadId: string,
): Promise<void> {
  const { db, store } = deps;
  const row = await requireUploadPotential(db, user, systemId, id);
  if (row.status !== "uploading" || row.uploadId !== uploadId) return;
  await store.abortMultipartUpload(topologyKey(row.id), uploadId);
  await db.transaction(async (tx) => {
    const next = await updatePotential(
      tx,
      row.id,
      { status: "pending_upload", file: null, fileSize: null, uploadId: null },
      { fromStatuses: ["uploading"], uploadId },
    );
    if (next) await notifyPotential(tx, next);
  });
}

/** Ends an uploaded potential's .top upload in progress, in the caller's transaction: it waits for
 * a file again (pushed). Answers the store's upload for the caller to abort once committed. */
async function endTopologyUpload(db: Db, row: PotentialRow): Promise<StoredUpload | undefined> {
  if (row.status !== "uploading" || !row.uploadId) return undefined;
  const next = await updatePotential(
    db,
    row.id,
    { status: "pending_upload", file: null, fileSize: null, uploadId: null },
    { fromStatuses: ["uploading"], uploadId: row.uploadId },
  );
  if (!next) return undefined;
  await notifyPotential(db, next);
  return { key: topologyKey(row.id), uploadId: row.uploadId };
}

/** A system archived: its potentials' .top uploads in progress end (in the caller's transaction);
 * answers them for the caller to abort in the store once committed. */
export async function endTopologyUploadsOfSystem(db: Db, systemId: string): Promise<StoredUpload[]> {
  const ended: StoredUpload[] = [];
  for (const row of await uploadingPotentialsOfSystem(db, systemId)) {
    const upload = await endTopologyUpload(db, row);
    if (upload) ended.push(upload);
  }
  return ended;
}

/** The sweep: .top uploads no part URL was asked for since every URL handed out expired are
 * aborted. Answers how many. */
export async function abortIdleTopologyUploads(deps: PotentialsDeps): Promise<number> {
  return endUploads(deps, await idleUploadingPotentials(deps.db, idleUploadHorizon()), endTopologyUpload);
}

export interface PotentialDownload {
  fileName: string;
  contentType: string;
  size: number;
  stream: Readable;
}

/** GET …/potentials/{potentialId}/files: a completed generation's zip, or an uploaded .top once its
 * file is complete. */
export async function openPotentialFiles(
  deps: PotentialsDeps,
  user: AuthenticatedUser,
  systemId: string,
  id: string,
): Promise<PotentialDownload> {
  const { row } = await requirePotential(deps.db, user, systemId, id);
  const notReady = () => new AppError(409, SystemErrors.GET_FILES_NOT_READY, { status: row.status });
  if (row.origin === "upload") {
    if (DRAFT_UPLOAD_STATUSES.includes(row.status as (typeof DRAFT_UPLOAD_STATUSES)[number]) || !row.file) {
      throw notReady();
    }
    const opened = await deps.store.open(topologyKey(row.id));
    if (!opened) throw notReady();
    return { fileName: row.file, contentType: "text/plain", ...opened };
  }
  const zip = row.resultFiles.find((file) => file.name.endsWith(".zip"));
  if (row.status !== "completed" || !zip) throw notReady();
  const opened = await deps.store.open(potentialKey(row.id, zip.name));
  if (!opened) throw new AppError(404, SystemErrors.GET_FILES_RETRIEVAL_FAILED, { file: zip.name });
  return { fileName: zip.name, contentType: "application/zip", ...opened };
}
