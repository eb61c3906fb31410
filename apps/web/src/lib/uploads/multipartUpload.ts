import { UPLOAD_PART_SIZE } from "@polyforge/contracts/uploads";
import AwsS3 from "@uppy/aws-s3";
import Uppy from "@uppy/core";
import { putPart } from "./putPart";
import type { UploadTarget } from "./uploadTarget";

/** Parts in flight at once: enough to fill a link, few enough not to starve the page's own calls. */
export const PARTS_IN_FLIGHT = 4;

export interface MultipartUploadCallbacks {
  /** The upload id, once begin answered (or at once when resuming). */
  onUploadId(uploadId: string): void;
  onProgress(uploadedBytes: number, totalBytes: number): void;
  onComplete(): void;
  onError(error: Error): void;
}

export interface MultipartUploadOptions extends MultipartUploadCallbacks {
  file: File;
  target: UploadTarget;
  /** An upload begun earlier for this same file: its stored parts are listed and skipped. */
  resumeUploadId?: string;
  /** Uppy's waits before trying a failed part again; tests pass []. */
  retryDelays?: number[];
}

export interface MultipartUploadHandle {
  /** Stops sending and aborts the upload on the server (the user's Cancel). */
  cancel(): void;
  /** Stops sending and keeps the stored parts for a later resume (page left, component gone). */
  detach(): void;
}

/** What the upload's callbacks share: the server's upload id once known, whether a teardown
 * should abort on the server (only the user's Cancel), and whether the caller was told the end. */
interface UploadState {
  uploadId: string | undefined;
  abortOnServer: boolean;
  settled: boolean;
}

/**
 * One file sent in 5 MB parts by Uppy's S3 multipart uploader, whose callbacks are our calls: begin,
 * upload_url, parts (ListParts), complete, cancel. A part's ETag is read from its PUT's answer.
 */
export function startMultipartUpload(options: MultipartUploadOptions): MultipartUploadHandle {
  const { file, resumeUploadId } = options;
  // Uppy aborts on the server whenever it is torn down; only the user's Cancel should do that.
  const state: UploadState = { uploadId: resumeUploadId, abortOnServer: false, settled: false };
  const uppy = createS3Uppy(options, state);

  const fileId = uppy.addFile({ name: file.name, type: file.type || "application/octet-stream", data: file });
  if (resumeUploadId) {
    // Uppy resumes a file that carries its multipart state: ListParts, then only the missing parts.
    uppy.setFileState(fileId, { s3Multipart: { uploadId: resumeUploadId, key: file.name } } as never);
    options.onUploadId(resumeUploadId);
  }
  reportOutcome(uppy, options, state);

  return {
    cancel() {
      state.settled = true;
      state.abortOnServer = true;
      uppy.cancelAll();
      uppy.destroy();
    },
    detach() {
      state.settled = true;
      uppy.destroy();
    },
  };
}

/** An Uppy whose S3 multipart plugin calls the upload target (and PUTs parts with putPart). */
function createS3Uppy(options: MultipartUploadOptions, state: UploadState) {
  const { file, target } = options;
  const uppy = new Uppy({ autoProceed: false, allowMultipleUploadBatches: false });
  uppy.use(AwsS3, {
    shouldUseMultipart: true,
    getChunkSize: () => UPLOAD_PART_SIZE,
    limit: PARTS_IN_FLIGHT,
    retryDelays: options.retryDelays ?? [0, 1000, 3000, 5000],
    async createMultipartUpload(uppyFile) {
      const begun = await target.begin({ name: uppyFile.name ?? file.name, size: uppyFile.size ?? file.size });
      state.uploadId = begun.upload_id;
      // Canceled while begin was on its way: nothing else will abort this one.
      if (state.abortOnServer) void target.cancel(begun.upload_id).catch(() => undefined);
      else options.onUploadId(begun.upload_id);
      return { uploadId: begun.upload_id, key: file.name };
    },
    async signPart(_file, { uploadId: id, partNumber, signal }) {
      const { url } = await target.partUrl(id, partNumber, signal);
      return { method: "PUT", url };
    },
    async uploadPartBytes({ signature, body, size, onProgress, onComplete, signal }) {
      const reportSent = (loaded: number) => onProgress?.({ loaded, lengthComputable: true });
      const part = { url: signature.url, body: body as Blob, signal, headers: signature.headers };
      const { etag } = await putPart({ ...part, onProgress: reportSent });
      reportSent(size ?? (body as Blob).size);
      onComplete?.(etag);
      return { ETag: etag };
    },
    async listParts(_file, { uploadId: id, signal }) {
      const { parts } = await target.listParts(id ?? state.uploadId ?? "", signal);
      return parts.map((part) => ({ PartNumber: part.part_number, ETag: part.etag, Size: part.size }));
    },
    async completeMultipartUpload(_file, { uploadId: id, parts }) {
      await target.complete(
        id,
        parts.map((part) => ({ etag: part.ETag ?? "", part_number: part.PartNumber ?? 0 })),
      );
      return {};
    },
    async abortMultipartUpload(_file, { uploadId: id }) {
      const canceled = id ?? state.uploadId;
      if (state.abortOnServer && canceled) await target.cancel(canceled);
    },
  });
  return uppy;
}

/** Starts sending and tells the caller progress, then once only the end: complete or error. */
function reportOutcome(
  uppy: ReturnType<typeof createS3Uppy>,
  options: MultipartUploadOptions,
  state: UploadState,
): void {
  const settle = () => {
    if (state.settled) return false;
    state.settled = true;
    return true;
  };
  uppy.on("upload-progress", (_file, progress) => {
    if (!state.settled) options.onProgress(progress.bytesUploaded, progress.bytesTotal ?? options.file.size);
  });
  uppy.on("upload-success", () => {
    if (settle()) options.onComplete();
  });
  uppy.on("upload-error", (_file, error) => {
    if (!settle()) return;
    // SPEC §7: a failed part (or one answered without an ETag) cancels the upload on the server.
    if (state.uploadId) void options.target.cancel(state.uploadId).catch(() => undefined);
    options.onError(error);
  });
  void uppy.upload().catch((error: unknown) => {
    if (settle()) options.onError(error instanceof Error ? error : new Error(String(error)));
  });
}
