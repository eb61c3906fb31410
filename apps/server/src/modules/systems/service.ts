import { type ErrorCode, SystemErrors } from "@polyforge/contracts/errors";
import type { SystemResponse } from "@polyforge/contracts/systems";
import type { AuthenticatedUser } from "../../platform/auth/user";
import type { Db } from "../../platform/db/database";
import { AppError } from "../../platform/errors";
import { requireUuid } from "../../platform/ids";
import { findCatalogueIds, findCatalogueSystem, findDraftSystem, type SystemRow } from "./queries";

/**
 * The systems kernel's rules, for the modules above it: a system as every call answers it, the
 * caller's draft or catalogue system or 404. It imports no module.
 */

export function systemResponse(row: SystemRow): SystemResponse {
  return {
    id: row.id,
    name: row.name,
    sanitized_name: row.sanitizedName,
    description: row.description,
    origin: row.origin,
    type: row.type,
    is_draft: row.isDraft,
    system_data: row.systemData,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The caller's draft (locked when asked); a missing draft answers 404 with `notFoundCode`. */
export async function requireDraftSystem(
  db: Db,
  ownerId: string,
  notFoundCode: ErrorCode = SystemErrors.GET_NOT_FOUND,
  lock = false,
): Promise<SystemRow> {
  const draft = await findDraftSystem(db, ownerId, lock);
  if (!draft) throw new AppError(404, notFoundCode, { draft: true });
  return draft;
}

/** The systems a list of draft rows (segments, polymers) reads: all the caller's, or the draft's
 * only when `draftOnly`; null when there is no draft, so the list is empty. */
export async function draftScope(db: Db, ownerId: string, draftOnly: boolean): Promise<{ systemId?: string } | null> {
  if (!draftOnly) return {};
  const draft = await findDraftSystem(db, ownerId);
  return draft ? { systemId: draft.id } : null;
}

/** The caller's finished (not draft, not archived) system, locked when asked; anything else
 * answers 404. */
export async function requireCatalogueSystem(
  db: Db,
  user: AuthenticatedUser,
  id: string,
  lock = false,
): Promise<SystemRow> {
  requireUuid(id, SystemErrors.VALIDATE_INVALID_ID);
  const row = await findCatalogueSystem(db, user.id, id, lock);
  if (!row) throw new AppError(404, SystemErrors.GET_NOT_FOUND, { id });
  return row;
}

/** Of these ids, those of systems in the caller's catalogue (for the projects module). */
export async function catalogueSystemIds(db: Db, user: AuthenticatedUser, ids: string[]): Promise<string[]> {
  return findCatalogueIds(db, user.id, ids);
}
