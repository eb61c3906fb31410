import { z } from "zod";

/**
 * Resumable multipart uploads (SPEC §7, §9; ARCHITECTURE §7b): begin → a signed URL per 5 MB part →
 * the browser PUTs each part and reads its ETag → complete (or cancel). The same calls serve system
 * structure files and potential topology files; the embedded store and S3 answer alike.
 */

export const MB = 1024 * 1024;
/** SPEC §9: 5 MB per part (S3's minimum for every part but the last). */
export const UPLOAD_PART_SIZE = 5 * MB;
/** S3's ceiling on parts per upload. */
export const MAX_UPLOAD_PARTS = 10_000;

/** How many parts a file of this size is sent in: ceil(size / 5 MB), at least one. */
export function uploadPartCount(fileBytes: number): number {
  return Math.max(1, Math.ceil(fileBytes / UPLOAD_PART_SIZE));
}

/**
 * The bytes part `partNumber` of a file of `fileBytes` holds: 5 MB, the last part the rest; 0 for a
 * part past the last. A part may hold no more than its share, so the parts stored for an upload never
 * add up to more than the size it was begun with, however many are sent at once.
 */
export function uploadPartBytes(fileBytes: number, partNumber: number): number {
  if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > uploadPartCount(fileBytes)) return 0;
  return Math.min(UPLOAD_PART_SIZE, fileBytes - (partNumber - 1) * UPLOAD_PART_SIZE);
}
/** SPEC §9: progress shown is capped at 99 % until the upload is complete. */
export const UPLOAD_PROGRESS_CAP = 99;

/** SPEC §9: a system definition file (.gro, .pdb) up to 2000 MB. */
export const STRUCTURE_FILE = { extensions: [".pdb", ".gro"], maxMegabytes: 2000 } as const;
/** SPEC §9: a potential file (.top) up to 4000 MB. */
export const TOPOLOGY_FILE = { extensions: [".top"], maxMegabytes: 4000 } as const;

export type UploadFileKind = typeof STRUCTURE_FILE | typeof TOPOLOGY_FILE;

/** SPEC §5 File input messages. */
export function fileTooLargeMessage(maxMegabytes: number): string {
  return `The file exceeds the maximum size of ${maxMegabytes} MB`;
}
export function unsupportedFileTypeMessage(extensions: ReadonlyArray<string>): string {
  return `The file has an unsupported file type. Accepted: ${extensions.join(", ")}`;
}

/** The extension of a file name, lower case with its dot ('' when there is none). */
export function fileExtension(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot).toLowerCase() : "";
}

/** The first problem with a file of this name and size for this kind, or undefined. */
export function fileProblem(kind: UploadFileKind, name: string, size: number): string | undefined {
  if (!(kind.extensions as ReadonlyArray<string>).includes(fileExtension(name))) {
    return unsupportedFileTypeMessage(kind.extensions);
  }
  if (size > kind.maxMegabytes * MB) return fileTooLargeMessage(kind.maxMegabytes);
  return undefined;
}

/** Characters a stored file name may not hold: control characters (CR and LF split headers and
 * log lines), Unicode line separators, and the bidirectional overrides that make `x‮bdp.pdb`
 * read as another name. */
const FILE_NAME_CONTROL = /[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;
export const FILE_NAME_CONTROL_MESSAGE = "A file name cannot contain control characters";

const fileName = z
  .string()
  .trim()
  .min(1)
  .max(255)
  .refine((n) => !/[/\\]/.test(n), "A file name cannot contain a path")
  .refine((n) => !FILE_NAME_CONTROL.test(n), FILE_NAME_CONTROL_MESSAGE);

/** POST …/upload/begin body for a file of this kind. */
export function uploadBeginBody(kind: UploadFileKind) {
  return z.object({ file: fileName, file_size: z.number().int().min(1) }).superRefine((body, ctx) => {
    const problem = fileProblem(kind, body.file, body.file_size);
    if (problem) ctx.addIssue({ code: "custom", message: problem, path: ["file"] });
  });
}
export type UploadBeginBody = { file: string; file_size: number };

export const uploadBeginResponse = z.object({ upload_id: z.string() });

const uploadId = z.string().min(1).max(1024);
const partNumber = z.coerce.number().int().min(1).max(MAX_UPLOAD_PARTS);

/** GET …/upload/upload_url query. */
export const uploadUrlQuery = z.object({ upload_id: uploadId, part_number: partNumber });
export const uploadUrlResponse = z.object({ url: z.string() });
export type UploadUrlResponse = z.infer<typeof uploadUrlResponse>;

/** GET …/upload/parts query (beyond SPEC: the S3 ListParts call, so an interrupted upload resumes). */
export const uploadPartsQuery = z.object({ upload_id: uploadId });
export const uploadedPart = z.object({ part_number: z.number().int(), etag: z.string(), size: z.number().int() });
export type UploadedPart = z.infer<typeof uploadedPart>;
export const uploadPartsResponse = z.object({ parts: z.array(uploadedPart) });
export type UploadPartsResponse = z.infer<typeof uploadPartsResponse>;

/** POST …/upload/complete body: every part, each with the ETag its PUT answered. */
export const uploadCompleteBody = z.object({
  upload_id: uploadId,
  parts: z
    .array(z.object({ etag: z.string().min(1).max(256), part_number: partNumber }))
    .min(1)
    .max(MAX_UPLOAD_PARTS),
});
export type UploadCompleteBody = z.infer<typeof uploadCompleteBody>;

/** POST …/upload/cancel body. */
export const uploadCancelBody = z.object({ upload_id: uploadId });

/** SPEC §4 upload machine states and messages. */
export const UPLOAD_MACHINE_STATES = ["idle", "uploading", "completed", "error", "canceled"] as const;
export const UPLOAD_FAILED_MESSAGE = "Upload failed. Retry this upload or select a different file.";
export const UPLOAD_CANCELED_MESSAGE = "Upload canceled";

/** Progress as shown: whole percent, at most 99 until the upload is complete (SPEC §9). */
export function shownUploadProgress(uploadedBytes: number, totalBytes: number, complete: boolean): number {
  if (complete) return 100;
  if (totalBytes <= 0) return 0;
  return Math.min(UPLOAD_PROGRESS_CAP, Math.floor((uploadedBytes / totalBytes) * 100));
}
