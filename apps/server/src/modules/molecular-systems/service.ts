import type { Readable } from "node:stream";
import { SystemErrors } from "@polyforge/contracts/errors";
import {
  type CreateMolecularSystemBody,
  canSaveStructure,
  drawnSmilesTooLargeMessage,
  MAX_DRAWN_SMILES_ATOMS,
  MOLECULAR_SYSTEM_ORIGINS,
  type MolecularSystemData,
  type MolecularSystemOrigin,
} from "@polyforge/contracts/molecular-systems";
import { dummyAtoms, smilesAtomCount } from "@polyforge/contracts/smiles/connection-rules";
import { sanitizeSystemName } from "@polyforge/contracts/systems";
import type { UploadBeginBody, UploadCompleteBody, UploadedPart } from "@polyforge/contracts/uploads";
import type { FastifyBaseLogger } from "fastify";
import type { AuthenticatedUser } from "../../platform/auth/user";
import { smilesChecker } from "../../platform/chemistry/smiles-checker";
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
import {
  findCatalogueSystem,
  idleUploadingSystems,
  insertSystem,
  markUploadActive,
  type SystemRow,
  updateMolecularData,
} from "../systems/queries";
import { initialData, insertStructureJob, molecularData, notifySystemStatus } from "./repository";
import { structureKey, uploadKey, VIEWER_FILE } from "./structure-jobs";

/** The answer of a call that moves a system's status: its id and its system_data. */
export function systemDataAnswer(row: SystemRow): { id: string; system_data: MolecularSystemData } {
  return { id: row.id, system_data: molecularData(row) };
}

/** What the upload and structure calls need besides the database. */
export interface MolecularSystemsDeps {
  db: Db;
  store: FileStore;
  logger: FastifyBaseLogger;
}

/** SPEC §4: a new file may be begun from these statuses (an upload in progress is replaced). */
const BEGIN_FROM = ["pending_upload", "uploading", "invalid", "error"] as const;

/** POST /systems: a system from a file or a SMILES; polymer_builder systems come from the draft. */
export async function createMolecularSystem(
  db: Db,
  user: AuthenticatedUser,
  body: CreateMolecularSystemBody,
): Promise<{ id: string }> {
  if (!(MOLECULAR_SYSTEM_ORIGINS as readonly string[]).includes(body.origin)) {
    throw new AppError(400, SystemErrors.VALIDATE_ORIGIN_NOT_ALLOWED, { origin: body.origin });
  }
  const row = await db.transaction(async (tx) => {
    const origin = body.origin as MolecularSystemOrigin;
    const created = await insertSystem(tx, user.id, {
      name: body.name,
      sanitizedName: sanitizeSystemName(body.name),
      description: body.description,
      origin,
      systemData: initialData(origin),
    });
    await notifySystemStatus(tx, created);
    return created;
  });
  return { id: row.id };
}

/** The caller's system of this origin: another user's answers 404, another origin 400. */
async function requireSystemOfOrigin(
  db: Db,
  user: AuthenticatedUser,
  id: string,
  origin: MolecularSystemOrigin,
): Promise<SystemRow> {
  requireUuid(id, SystemErrors.VALIDATE_INVALID_ID);
  const row = await findCatalogueSystem(db, user.id, id);
  if (!row) throw new AppError(404, SystemErrors.GET_NOT_FOUND, { id });
  if (row.origin !== origin) throw new AppError(409, SystemErrors.VALIDATE_ORIGIN_NOT_ALLOWED, { origin: row.origin });
  return row;
}

/** A SMILES the engine can take: no connection markers, RDKit reads it, and it holds at most
 * MAX_DRAWN_SMILES_ATOMS atoms — counted on the text before RDKit sees it, then with hydrogens. */
async function assertStructureSmiles(user: AuthenticatedUser, smiles: string): Promise<void> {
  const invalid = () => new AppError(400, SystemErrors.CREATE_DRAWN_SYSTEM_INVALID_SMILES, { smiles });
  const tooLarge = (atoms: number, counted: "with hydrogens" | "written") =>
    new AppError(400, SystemErrors.CREATE_DRAWN_SYSTEM_SMILES_TOO_LARGE, {
      atoms,
      max_atoms: MAX_DRAWN_SMILES_ATOMS,
      message: drawnSmilesTooLargeMessage(atoms, counted),
    });
  if (dummyAtoms(smiles).length > 0) throw invalid();
  const written = smilesAtomCount(smiles);
  if (written > MAX_DRAWN_SMILES_ATOMS) throw tooLarge(written, "written");
  const atoms = await smilesChecker.structureAtoms(smiles, user.id);
  if (atoms === null) throw invalid();
  if (atoms > MAX_DRAWN_SMILES_ATOMS) throw tooLarge(atoms, "with hydrogens");
}

/**
 * POST /systems/{id}/smiles (Save structure): queues one convert-smiles job and moves the system to
 * converting. A second Save while converting (a double click) or once converted answers 409 and
 * queues nothing: the status update is conditional and a unique index allows one active job.
 */
export async function saveSmiles(db: Db, user: AuthenticatedUser, id: string, smiles: string): Promise<SystemRow> {
  const system = await requireSystemOfOrigin(db, user, id, "smiles");
  await assertStructureSmiles(user, smiles);
  const busy = (status: string) => new AppError(409, SystemErrors.CREATE_DRAWN_SYSTEM_FAILED, { status });
  const current = molecularData(system);
  if (!canSaveStructure(current.status)) throw busy(current.status);
  try {
    return await db.transaction(async (tx) => {
      const data: MolecularSystemData = { ...current, status: "converting", smiles, structure: null, problem: null };
      const moved = await updateMolecularData(tx, system.id, data, { fromStatuses: ["pending", "failed", "error"] });
      if (!moved) throw busy("converting");
      await insertStructureJob(tx, {
        systemId: system.id,
        ownerId: user.id,
        kind: "convert-smiles",
        input: { smiles },
      });
      await notifySystemStatus(tx, moved);
      return moved;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw busy("converting");
    throw error;
  }
}

/** POST …/upload/begin: a new multipart upload of a .pdb/.gro (extension and size checked by the
 * body's contract). Replaces an upload in progress (its parts are dropped). */
export async function beginUpload(
  deps: MolecularSystemsDeps,
  user: AuthenticatedUser,
  id: string,
  body: UploadBeginBody,
): Promise<{ upload_id: string }> {
  const { db, store } = deps;
  const system = await requireSystemOfOrigin(db, user, id, "upload");
  const current = molecularData(system);
  if (!(BEGIN_FROM as readonly string[]).includes(current.status)) {
    throw new AppError(409, SystemErrors.CREATE_UPLOADED_SYSTEM_FAILED, { status: current.status });
  }
  const key = uploadKey(system.id, body.file);
  let uploadId: string;
  try {
    // No part can be larger than the file itself (the local store refuses it as it streams in).
    uploadId = await store.createMultipartUpload(key, body.file_size);
  } catch (err) {
    deps.logger.error({ err, systemId: system.id }, "starting an upload failed");
    throw new AppError(500, SystemErrors.CREATE_UPLOADED_SYSTEM_FAILED, { reason: "store" });
  }
  const data: MolecularSystemData = {
    ...current,
    status: "uploading",
    file: body.file,
    file_size: body.file_size,
    upload_id: uploadId,
    structure: null,
    problem: null,
  };
  const moved = await db.transaction(async (tx) => {
    const row = await updateMolecularData(tx, system.id, data, {
      fromStatuses: [current.status],
      ...(current.upload_id ? { uploadId: current.upload_id } : {}),
    });
    if (row) await notifySystemStatus(tx, row);
    return row;
  });
  if (!moved) {
    // Another call changed the system meanwhile: this upload is not used.
    await store.abortMultipartUpload(key, uploadId).catch(() => undefined);
    throw new AppError(409, SystemErrors.CREATE_UPLOADED_SYSTEM_FAILED, { status: "changed" });
  }
  if (current.status === "uploading" && current.upload_id && current.file) {
    await store.abortMultipartUpload(uploadKey(system.id, current.file), current.upload_id).catch((err: unknown) => {
      deps.logger.warn({ err, systemId: system.id }, "dropping a replaced upload failed");
    });
  }
  return { upload_id: uploadId };
}

/** The system's upload in progress with this id, or 404 (another upload, or none any more). */
async function requireUploading(db: Db, user: AuthenticatedUser, id: string, uploadId: string) {
  const system = await requireSystemOfOrigin(db, user, id, "upload");
  const data = molecularData(system);
  if (data.status !== "uploading" || data.upload_id !== uploadId || !data.file) {
    throw new AppError(404, SystemErrors.VALIDATE_SYSTEM_DATA_NOT_FOUND, { upload_id: uploadId, status: data.status });
  }
  return { system, data, key: uploadKey(system.id, data.file) };
}

/** GET …/upload/upload_url: where to PUT one part (presigned S3 URL or the embedded store's). */
export async function partUploadUrl(
  deps: MolecularSystemsDeps,
  user: AuthenticatedUser,
  id: string,
  uploadId: string,
  partNumber: number,
): Promise<{ url: string }> {
  const { system, data, key } = await requireUploading(deps.db, user, id, uploadId);
  const partBytes = requirePartBytes(data.file_size ?? 0, partNumber);
  // Each part asks for its URL: the upload is active (the sweep of idle uploads reads this).
  if (uploadActivityStale(system.updatedAt)) await markUploadActive(deps.db, system.id, uploadId);
  return { url: await deps.store.partUploadUrl(key, uploadId, partNumber, partBytes) };
}

/** GET …/upload/parts: the parts stored so far (S3 ListParts), so a client resumes an upload. */
export async function listUploadParts(
  deps: MolecularSystemsDeps,
  user: AuthenticatedUser,
  id: string,
  uploadId: string,
): Promise<{ parts: UploadedPart[] }> {
  const { key } = await requireUploading(deps.db, user, id, uploadId);
  try {
    return { parts: await deps.store.listParts(key, uploadId) };
  } catch (error) {
    throw storeError(error);
  }
}

function storeError(error: unknown): unknown {
  return multipartApiError(error, SystemErrors.CREATE_UPLOADED_SYSTEM_FAILED);
}

/** POST …/upload/complete: assembles the file and queues its validation (pending_validation). */
export async function completeUpload(
  deps: MolecularSystemsDeps,
  user: AuthenticatedUser,
  id: string,
  body: UploadCompleteBody,
): Promise<SystemRow> {
  const { db, store } = deps;
  const { system, data, key } = await requireUploading(db, user, id, body.upload_id);
  try {
    const ordered = checkPartList(body.parts, await store.listParts(key, body.upload_id), data.file_size ?? 0);
    await store.completeMultipartUpload(key, body.upload_id, ordered);
  } catch (error) {
    throw storeError(error);
  }
  const next: MolecularSystemData = { ...data, status: "pending_validation" };
  const moved = await db.transaction(async (tx) => {
    const row = await updateMolecularData(tx, system.id, next, {
      fromStatuses: ["uploading"],
      uploadId: body.upload_id,
    });
    if (!row) return undefined;
    await insertStructureJob(tx, {
      systemId: system.id,
      ownerId: user.id,
      kind: "validate-structure",
      input: { key, file: data.file },
    });
    await notifySystemStatus(tx, row);
    return row;
  });
  if (!moved) throw new AppError(409, SystemErrors.CREATE_UPLOADED_SYSTEM_FAILED, { status: "changed" });
  return moved;
}

/** POST …/upload/cancel: drops the upload's parts; the system waits for a file again. Cancelling
 * an upload that is already gone (a second cancel) answers the same. */
export async function cancelUpload(
  deps: MolecularSystemsDeps,
  user: AuthenticatedUser,
  id: string,
  uploadId: string,
): Promise<void> {
  const { db, store } = deps;
  const system = await requireSystemOfOrigin(db, user, id, "upload");
  const data = molecularData(system);
  if (data.status !== "uploading" || data.upload_id !== uploadId || !data.file) return;
  await store.abortMultipartUpload(uploadKey(system.id, data.file), uploadId);
  const next: MolecularSystemData = { ...data, status: "pending_upload", file: null, file_size: null, upload_id: null };
  await db.transaction(async (tx) => {
    const row = await updateMolecularData(tx, system.id, next, { fromStatuses: ["uploading"], uploadId });
    if (row) await notifySystemStatus(tx, row);
  });
}

/**
 * Ends the system's upload in progress, if any, in the caller's transaction: the system waits for a
 * file again (pushed). Answers the store's upload for the caller to abort once committed.
 */
export async function endUploadOfSystem(db: Db, system: SystemRow): Promise<StoredUpload | undefined> {
  if (system.origin !== "upload") return undefined;
  const data = molecularData(system);
  if (data.status !== "uploading" || !data.upload_id || !data.file) return undefined;
  const next: MolecularSystemData = { ...data, status: "pending_upload", file: null, file_size: null, upload_id: null };
  const row = await updateMolecularData(db, system.id, next, { fromStatuses: ["uploading"], uploadId: data.upload_id });
  if (!row) return undefined;
  await notifySystemStatus(db, row);
  return { key: uploadKey(system.id, data.file), uploadId: data.upload_id };
}

/** The sweep: uploads no part URL was asked for since every URL handed out expired are aborted, so
 * an abandoned upload's parts do not stay on the disk. Answers how many. */
export async function abortIdleUploads(deps: MolecularSystemsDeps): Promise<number> {
  return endUploads(deps, await idleUploadingSystems(deps.db, idleUploadHorizon()), endUploadOfSystem);
}

export interface StructureDownload {
  fileName: string;
  size: number;
  stream: Readable;
}

async function openKey(store: FileStore, key: string, fileName: string): Promise<StructureDownload> {
  const opened = await store.open(key);
  if (!opened) throw new AppError(404, SystemErrors.GET_FILES_NOT_READY, { file: fileName });
  return { fileName, size: opened.size, stream: opened.stream };
}

/** Formats of a converted SMILES besides the viewer's PDB. */
export const STRUCTURE_FORMATS = ["pdb", "gro", "sdf"] as const;

/**
 * GET /systems/{id}/structure: the structure the viewer shows — the PDB the engine wrote for a
 * validated upload or a converted SMILES, else the validated file itself. `format` picks another
 * of a converted SMILES's files.
 */
export async function openStructure(
  deps: MolecularSystemsDeps,
  user: AuthenticatedUser,
  id: string,
  format: (typeof STRUCTURE_FORMATS)[number] = "pdb",
): Promise<StructureDownload> {
  requireUuid(id, SystemErrors.VALIDATE_INVALID_ID);
  const system = await findCatalogueSystem(deps.db, user.id, id);
  if (!system) throw new AppError(404, SystemErrors.GET_NOT_FOUND, { id });
  const data = molecularData(system);
  const ready =
    (system.origin === "upload" && data.status === "valid") ||
    (system.origin === "smiles" && data.status === "converted");
  if (!ready) throw new AppError(409, SystemErrors.GET_FILES_NOT_READY, { status: data.status });
  const stem = system.sanitizedName || "structure";
  if (system.origin === "smiles")
    return openKey(deps.store, structureKey(system.id, `structure.${format}`), `${stem}.${format}`);
  if (data.structure?.viewer_file === VIEWER_FILE && format === "pdb") {
    return openKey(deps.store, structureKey(system.id, VIEWER_FILE), `${stem}.pdb`);
  }
  return openKey(deps.store, uploadKey(system.id, data.file ?? ""), data.file ?? "structure");
}

/** GET /systems/{id}/upload/file: the file as uploaded, under its own name, once complete. */
export async function openUploadedFile(
  deps: MolecularSystemsDeps,
  user: AuthenticatedUser,
  id: string,
): Promise<StructureDownload> {
  const system = await requireSystemOfOrigin(deps.db, user, id, "upload");
  const data = molecularData(system);
  const complete = ["pending_validation", "validating", "valid", "invalid", "error"].includes(data.status);
  if (!complete || !data.file) throw new AppError(409, SystemErrors.GET_FILES_NOT_READY, { status: data.status });
  return openKey(deps.store, uploadKey(system.id, data.file), data.file);
}

/** Where a system's structure is, for the potentials that parametrise it (issue 21). */
export interface PotentialStructure {
  system: SystemRow;
  /** The structure is validated (file) or converted (SMILES): potentials can be made for it. */
  ready: boolean;
  status: string;
  /** The structure file's store key and a file name with its extension (the engine reads the
   * format from it): the converted SMILES's SDF (bond orders known), else the uploaded file. */
  key: string;
  fileName: string;
}

/** The caller's system as its potentials see it: another user's (or an archived one) answers 404,
 * a polymer-builder system 400 (its potentials come from the builder's force fields). */
export async function structureForPotentials(db: Db, user: AuthenticatedUser, id: string): Promise<PotentialStructure> {
  requireUuid(id, SystemErrors.VALIDATE_INVALID_ID);
  const system = await findCatalogueSystem(db, user.id, id);
  if (!system) throw new AppError(404, SystemErrors.GET_NOT_FOUND, { id });
  if (system.origin !== "upload" && system.origin !== "smiles") {
    throw new AppError(409, SystemErrors.VALIDATE_ORIGIN_NOT_ALLOWED, { origin: system.origin });
  }
  const data = molecularData(system);
  if (system.origin === "smiles") {
    return {
      system,
      ready: data.status === "converted",
      status: data.status,
      key: structureKey(system.id, "structure.sdf"),
      fileName: "structure.sdf",
    };
  }
  return {
    system,
    ready: data.status === "valid",
    status: data.status,
    key: uploadKey(system.id, data.file ?? ""),
    fileName: data.file ?? "structure.pdb",
  };
}
