import { CommonErrors, type ErrorCode } from "@polyforge/contracts/errors";
import {
  type UploadCompleteBody,
  type UploadedPart,
  uploadPartBytes,
  uploadPartCount,
} from "@polyforge/contracts/uploads";
import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import type { Db } from "../db/database";
import { AppError } from "../errors";
import {
  bareEtag,
  type FileStore,
  MIN_PART_BYTES,
  MultipartError,
  normalizeCompletedParts,
  PART_URL_TTL_SECONDS,
} from "./file-store";

/**
 * The checks every multipart upload's complete call makes (system structure files and potential
 * topology files, ARCHITECTURE §7b), whatever resource the file belongs to.
 */

/**
 * The part list checked against what the store holds before anything is assembled, so a bad list
 * keeps every stored part for a retry: parts 1…n each stored with the ETag given, every one but the
 * last at least 5 MB, together exactly the size begun with.
 */
export function checkPartList(
  given: UploadCompleteBody["parts"],
  stored: UploadedPart[],
  fileSize: number,
): ReturnType<typeof normalizeCompletedParts> {
  const ordered = normalizeCompletedParts(given);
  const byNumber = new Map(stored.map((part) => [part.part_number, part]));
  let total = 0;
  ordered.forEach((part, index) => {
    if (part.part_number !== index + 1) {
      throw new MultipartError("InvalidPart", `Part ${index + 1} is missing from the list.`, index + 1);
    }
    const found = byNumber.get(part.part_number);
    if (!found) throw new MultipartError("InvalidPart", `Part ${part.part_number} was not uploaded.`, part.part_number);
    if (bareEtag(found.etag) !== part.etag) {
      throw new MultipartError("InvalidPart", `Part ${part.part_number}'s ETag does not match.`, part.part_number);
    }
    if (index < ordered.length - 1 && found.size < MIN_PART_BYTES) {
      throw new MultipartError("EntityTooSmall", `Part ${part.part_number} is smaller than 5 MB.`, part.part_number);
    }
    total += found.size;
  });
  if (total !== fileSize) {
    throw new MultipartError("InvalidPart", `The parts hold ${total} bytes, not the file's ${fileSize}.`);
  }
  return ordered;
}

/** A store's multipart refusal as the API answers it, under the resource's code: 404 for an upload
 * the store no longer has, 400 for a bad part list. Anything else is passed on unchanged. */
export function multipartApiError(error: unknown, code: ErrorCode): unknown {
  if (!(error instanceof MultipartError)) return error;
  const status = error.code === "NoSuchUpload" ? 404 : 400;
  return new AppError(status, code, {
    reason: error.code,
    message: error.message,
    ...(error.partNumber !== undefined ? { part_number: error.partNumber } : {}),
  });
}

/** The bytes part `partNumber` of an upload of `fileBytes` may hold (its part URL takes no more);
 * 413 for a part past the last, so no URL is handed out for it. */
export function requirePartBytes(fileBytes: number, partNumber: number): number {
  const bytes = uploadPartBytes(fileBytes, partNumber);
  if (bytes > 0) return bytes;
  const parts = uploadPartCount(fileBytes);
  throw new AppError(413, CommonErrors.UPLOAD_PART_TOO_LARGE, {
    part_number: partNumber,
    parts,
    message: `Part ${partNumber} is past the last of this file's ${parts} parts.`,
  });
}

/** How often an upload's activity is written down (at most): each part's URL marks the upload
 * active, once a minute rather than once a part. */
export const UPLOAD_ACTIVITY_INTERVAL_MS = 60_000;

/** Whether an upload last marked active at `markedAt` should be marked again. */
export function uploadActivityStale(markedAt: Date, now = Date.now()): boolean {
  return now - markedAt.getTime() >= UPLOAD_ACTIVITY_INTERVAL_MS;
}

/** Uploads last marked active before this are idle past the life of every part URL they were
 * given: no part can arrive any more, and the sweep aborts them. */
export function idleUploadHorizon(now = Date.now()): Date {
  return new Date(now - PART_URL_TTL_SECONDS * 1000 - UPLOAD_ACTIVITY_INTERVAL_MS);
}

/** How often the idle uploads are looked for. */
const UPLOAD_SWEEP_INTERVAL_MS = 5 * 60_000;

/**
 * Runs `sweep` once the app is ready and then every few minutes until it closes (each resource's
 * abandoned uploads, the embedded store's leftovers); a failure is logged, never thrown.
 */
export function scheduleUploadSweep(app: FastifyInstance, what: string, sweep: () => Promise<number>): void {
  const run = async (logger: FastifyBaseLogger) => {
    try {
      const removed = await sweep();
      if (removed > 0) logger.info({ removed }, `aborted idle ${what}`);
    } catch (err) {
      logger.warn({ err }, `sweeping idle ${what} failed`);
    }
  };
  let timer: NodeJS.Timeout | undefined;
  app.addHook("onReady", async () => {
    void run(app.log);
    timer = setInterval(() => void run(app.log), UPLOAD_SWEEP_INTERVAL_MS);
    timer.unref();
  });
  app.addHook("onClose", async () => clearInterval(timer));
}

/** An upload in progress in the store, as a resource row names it. */
export interface StoredUpload {
  key: string;
  uploadId: string;
}

/** Aborts these uploads in the store (their rows have already moved on); a failure is logged, the
 * sweep or the store's own lifecycle rule gets it later. */
export async function abortStoredUploads(
  store: FileStore,
  uploads: ReadonlyArray<StoredUpload>,
  logger: FastifyBaseLogger,
): Promise<void> {
  for (const { key, uploadId } of uploads) {
    await store.abortMultipartUpload(key, uploadId).catch((err: unknown) => {
      logger.warn({ err, uploadId }, "aborting an upload failed");
    });
  }
}

/**
 * Ends the uploads of these rows, each in a transaction of its own (`end` moves the row on and
 * answers its upload, or nothing when it had moved already), then aborts them in the store.
 * Answers how many ended.
 */
export async function endUploads<Row>(
  deps: { db: Db; store: FileStore; logger: FastifyBaseLogger },
  rows: ReadonlyArray<Row>,
  end: (tx: Db, row: Row) => Promise<StoredUpload | undefined>,
): Promise<number> {
  const ended: StoredUpload[] = [];
  for (const row of rows) {
    const upload = await deps.db.transaction((tx) => end(tx, row));
    if (upload) ended.push(upload);
  }
  await abortStoredUploads(deps.store, ended, deps.logger);
  return ended.length;
}
