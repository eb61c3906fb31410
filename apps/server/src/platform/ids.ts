import type { ErrorCode } from "@polyforge/contracts/errors";
import { AppError } from "./errors";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a path id has the form of a uuid (a resource id, whatever its version). */
export function isUuid(id: string): boolean {
  return UUID.test(id);
}

/** A path id must be a uuid; otherwise the resource's own INVALID_ID code answers 400. */
export function requireUuid(id: string, code: ErrorCode): string {
  if (!isUuid(id)) throw new AppError(400, code, { id });
  return id;
}
