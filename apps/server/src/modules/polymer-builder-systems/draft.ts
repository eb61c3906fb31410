import { type ErrorCode, SystemErrors } from "@polyforge/contracts/errors";
import type { RuleProblem } from "@polyforge/contracts/segments";
import type { Db } from "../../platform/db/database";
import { AppError } from "../../platform/errors";
import { findDraftSystem, type SystemRow } from "../systems/queries";

/**
 * Helpers shared by the polymer-builder resources (segments, polymers, setup, protocol), which all
 * belong to the caller's one draft system.
 */

/** A broken SPEC §5 rule as the client sees it: 400 with its code and args. */
export function ruleError(problem: RuleProblem): AppError {
  return new AppError(400, problem.code, problem.args ?? {});
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
