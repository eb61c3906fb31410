import type { UploadedPart, UploadPartsResponse, UploadUrlResponse } from "@polyforge/contracts/uploads";
import { api } from "../api/client";

/**
 * The server side of one resumable multipart upload (SPEC §7): begin → a signed URL per part →
 * complete, or cancel; `listParts` is S3's ListParts, so an interrupted upload resumes.
 */
export interface UploadTarget {
  begin(file: { name: string; size: number }): Promise<{ upload_id: string }>;
  partUrl(uploadId: string, partNumber: number, signal?: AbortSignal): Promise<{ url: string }>;
  listParts(uploadId: string, signal?: AbortSignal): Promise<{ parts: UploadedPart[] }>;
  complete(uploadId: string, parts: ReadonlyArray<{ etag: string; part_number: number }>): Promise<unknown>;
  cancel(uploadId: string): Promise<unknown>;
}

/**
 * The upload calls under one API path: `/systems/{id}/upload` for a system's structure file,
 * `/systems/{id}/potentials/{potentialId}/upload` for a potential's topology, named alike.
 */
export function uploadTargetAt(uploadPath: string): UploadTarget {
  return {
    begin: (file) => api.post<{ upload_id: string }>(`${uploadPath}/begin`, { file: file.name, file_size: file.size }),
    partUrl: (uploadId, partNumber, signal) =>
      api.get<UploadUrlResponse>(`${uploadPath}/upload_url`, {
        query: { upload_id: uploadId, part_number: partNumber },
        signal,
      }),
    listParts: (uploadId, signal) =>
      api.get<UploadPartsResponse>(`${uploadPath}/parts`, { query: { upload_id: uploadId }, signal }),
    complete: (uploadId, parts) => api.post(`${uploadPath}/complete`, { upload_id: uploadId, parts }),
    cancel: (uploadId) => api.post(`${uploadPath}/cancel`, { upload_id: uploadId }),
  };
}
