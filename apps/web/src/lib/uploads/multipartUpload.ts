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

/**
 * One file sent in 5 MB parts by Uppy's S3 multipart uploader, whose callbacks are our calls: begin,
 * upload_url, parts (ListParts), complete, cancel. A part's ETag is read from its PUT's answer.
 */
export function startMultipartUpload(options: MultipartUploadOptions): MultipartUploadHandle {
  const { file, target, resumeUploadId } = options;
  let uploadId = resumeUploadId;
  // Uppy aborts on the server whenever it is torn down; only the user's Cancel should do that.
  let abortOnServer = false;
  let settled = false;

  const uppy = new Uppy({ autoProceed: false, allowMultipleUploadBatches: false });
  uppy.use(AwsS3, {
    shouldUseMultipart: true,
    getChunkSize: () => UPLOAD_PART_SIZE,
    limit: PARTS_IN_FLIGHT,
    retryDelays: options.retryDelays ?? [0, 1000, 3000, 5000],
    async createMultipartUpload(uppyFile) {
      const begun = await target.begin({ name: uppyFile.name ?? file.name, size: uppyFile.size ?? file.size });
      uploadId = begun.upload_id;
      // Canceled while begin was on its way: nothing else will abort this one.
      if (abortOnServer) void target.cancel(uploadId).catch(() => undefined);
      else options.onUploadId(uploadId);
      return { uploadId, key: file.name };
    },
    async signPart(_file, { uploadId: id, partNumber, signal }) {
      const { url } = await target.partUrl(id, partNumber, signal);
      return { method: "PUT", url };
    },
    async uploadPartBytes({ signature, body, size, onProgress, onComplete, signal }) {
      const { etag } = await putPart({ url: signature.url, body: body as Blob, signal, headers: signature.headers });
      onProgress?.({ loaded: size ?? (body as Blob).size, lengthComputable: true });
      onComplete?.(etag);
      return { ETag: etag };
    },
    async listParts(_file, { uploadId: id, signal }) {
      const { parts } = await target.listParts(id ?? uploadId ?? "", signal);
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
      const canceled = id ?? uploadId;
      if (abortOnServer && canceled) await target.cancel(canceled);
    },
  });

  const fileId = uppy.addFile({ name: file.name, type: file.type || "application/octet-stream", data: file });
  if (resumeUploadId) {
    // Uppy resumes a file that carries its multipart state: ListParts, then only the missing parts.
    uppy.setFileState(fileId, { s3Multipart: { uploadId: resumeUploadId, key: file.name } } as never);
    options.onUploadId(resumeUploadId);
  }

  uppy.on("upload-progress", (_file, progress) => {
    if (!settled) options.onProgress(progress.bytesUploaded, progress.bytesTotal ?? file.size);
  });
  uppy.on("upload-success", () => {
    if (settled) return;
    settled = true;
    options.onComplete();
  });
  uppy.on("upload-error", (_file, error) => {
    if (settled) return;
    settled = true;
    // SPEC §7: a failed part (or one answered without an ETag) cancels the upload on the server.
    if (uploadId) void target.cancel(uploadId).catch(() => undefined);
    options.onError(error);
  });

  void uppy.upload().catch((error: unknown) => {
    if (settled) return;
    settled = true;
    options.onError(error instanceof Error ? error : new Error(String(error)));
  });

  return {
    cancel() {
      settled = true;
      abortOnServer = true;
      uppy.cancelAll();
      uppy.destroy();
    },
    detach() {
      settled = true;
      uppy.destroy();
    },
  };
}
