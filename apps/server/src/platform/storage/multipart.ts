import type { ErrorCode } from "@polyforge/contracts/errors";
import type { UploadCompleteBody, UploadedPart } from "@polyforge/contracts/uploads";
import { AppError } from "../errors";
import { bareEtag, MIN_PART_BYTES, MultipartError, normalizeCompletedParts } from "./file-store";

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
