import { PolymerBuilderSystemErrors, PolymerErrors, SystemErrors } from "@polyforge/contracts/errors";
import type { JobLimits } from "@polyforge/contracts/job-limits";
import {
  type SimulationProtocolBody,
  type SimulationProtocolResponse,
  type SystemSetupBody,
  type SystemSetupResponse,
  simulationProtocolProblem,
  systemSetupProblem,
} from "@polyforge/contracts/polymer-builder";
import { type FinishDraftBody, type SystemResponse, sanitizeSystemName } from "@polyforge/contracts/systems";
import type { AuthenticatedUser } from "../../platform/auth/user";
import type { Db } from "../../platform/db/database";
import { isUniqueViolation } from "../../platform/db/errors";
import { AppError, ruleError } from "../../platform/errors";
import { requireUuid } from "../../platform/ids";
import { endDraftBlocks } from "../building-blocks/queries";
import { polymerIdsInSystem } from "../polymers/queries";
import { deleteDraftSystem, findDraftSystem, insertDraftSystem, markFinished } from "../systems/queries";
import { requireDraftSystem, systemResponse } from "../systems/service";
import { freezeDraft } from "./finish";
import {
  findProtocolOfSystem,
  findSetupOfSystem,
  insertDraftSettings,
  lockProtocolOfDraft,
  lockSetupOfDraft,
  protocolResponse,
  saveProtocol,
  saveSetup,
  setupResponse,
} from "./repository";

/**
 * The polymer builder's draft system: its life (start, read, clear, finish into the catalogue)
 * and its system setup and simulation protocol (steps 4 and 5).
 */

/** POST /systems/draft: a user has at most one draft (a unique index guards concurrent calls). */
export async function createDraft(db: Db, user: AuthenticatedUser): Promise<SystemResponse> {
  try {
    const row = await db.transaction(async (tx) => {
      if (await findDraftSystem(tx, user.id)) throw existingDraft();
      const draft = await insertDraftSystem(tx, user.id);
      await insertDraftSettings(tx, user.id, draft.id);
      return draft;
    });
    return systemResponse(row);
  } catch (error) {
    if (isUniqueViolation(error)) throw existingDraft();
    throw error;
  }
}

function existingDraft(): AppError {
  return new AppError(409, SystemErrors.CREATE_DRAFT_EXISTING_DRAFT);
}

export async function getDraft(db: Db, user: AuthenticatedUser): Promise<SystemResponse> {
  const draft = await findDraftSystem(db, user.id);
  if (!draft) throw new AppError(404, SystemErrors.GET_NOT_FOUND, { draft: true });
  return systemResponse(draft);
}

/** DELETE /systems/draft: the draft and everything in it go; its blocks stop being draft blocks. */
export async function deleteDraft(db: Db, user: AuthenticatedUser): Promise<void> {
  await db.transaction(async (tx) => {
    const deleted = await deleteDraftSystem(tx, user.id);
    if (!deleted) throw new AppError(404, SystemErrors.DELETE_NOT_FOUND, { draft: true });
    await endDraftBlocks(tx, user.id);
  });
}

/** PATCH /systems/{id}/draft with a name and is_draft=false: freezes the engine job, sets the type
 * (ARCHITECTURE §5) and leaves the user without a draft. */
export async function finishDraft(
  db: Db,
  user: AuthenticatedUser,
  id: string,
  body: FinishDraftBody,
  limits?: JobLimits,
): Promise<SystemResponse> {
  requireUuid(id, SystemErrors.VALIDATE_INVALID_ID);
  const row = await db.transaction(async (tx) => {
    const draft = await findDraftSystem(tx, user.id, true);
    if (!draft || draft.id !== id) throw new AppError(404, SystemErrors.UPDATE_NOT_FOUND, { id });
    const sanitizedName = sanitizeSystemName(body.name);
    const frozen = await freezeDraft(tx, draft, body.name, sanitizedName, limits);
    const finished = await markFinished(tx, draft.id, {
      name: body.name,
      sanitizedName,
      type: frozen.type,
      systemData: frozen.systemData,
      engineJob: frozen.engineJob,
    });
    await endDraftBlocks(tx, user.id);
    return finished;
  });
  return systemResponse(row);
}

export async function getDraftSetup(db: Db, user: AuthenticatedUser): Promise<SystemSetupResponse> {
  const draft = await requireDraftSystem(db, user.id, PolymerBuilderSystemErrors.GET_NOT_FOUND);
  const setup = await findSetupOfSystem(db, draft.id);
  if (!setup) throw new AppError(404, PolymerBuilderSystemErrors.GET_NOT_FOUND, { draft: true });
  return setupResponse(db, setup);
}

export async function getDraftProtocol(db: Db, user: AuthenticatedUser): Promise<SimulationProtocolResponse> {
  const draft = await requireDraftSystem(db, user.id, PolymerBuilderSystemErrors.GET_NOT_FOUND);
  const protocol = await findProtocolOfSystem(db, draft.id);
  if (!protocol) throw new AppError(404, PolymerBuilderSystemErrors.GET_NOT_FOUND, { draft: true });
  return protocolResponse(protocol);
}

/** PATCH /system_setup/{id}: only the setup of the caller's draft can change; its polymers must be
 * the draft's own. */
export async function updateSetup(
  db: Db,
  user: AuthenticatedUser,
  setupId: string,
  body: SystemSetupBody,
): Promise<SystemSetupResponse> {
  requireUuid(setupId, PolymerBuilderSystemErrors.VALIDATE_ID_INVALID_FORMAT);
  const problem = systemSetupProblem(body);
  if (problem) throw ruleError(problem);
  return db.transaction(async (tx) => {
    const draft = await requireDraftSystem(tx, user.id, PolymerBuilderSystemErrors.UPDATE_NOT_FOUND);
    const setup = await lockSetupOfDraft(tx, setupId, draft.id);
    if (!setup) throw new AppError(404, PolymerBuilderSystemErrors.UPDATE_NOT_FOUND, { id: setupId });
    const ids = body.polymers.map((p) => p.polymer_id);
    const known = await polymerIdsInSystem(tx, draft.id, ids);
    const unknown = ids.find((id) => !known.has(id));
    if (unknown) throw new AppError(404, PolymerErrors.GET_NOT_FOUND, { id: unknown });
    await saveSetup(tx, setup.id, body);
    const saved = await findSetupOfSystem(tx, draft.id);
    return setupResponse(tx, saved!);
  });
}

export async function updateProtocol(
  db: Db,
  user: AuthenticatedUser,
  protocolId: string,
  body: SimulationProtocolBody,
): Promise<SimulationProtocolResponse> {
  requireUuid(protocolId, PolymerBuilderSystemErrors.VALIDATE_ID_INVALID_FORMAT);
  const problem = simulationProtocolProblem(body);
  if (problem) throw ruleError(problem);
  return db.transaction(async (tx) => {
    const draft = await requireDraftSystem(tx, user.id, PolymerBuilderSystemErrors.UPDATE_NOT_FOUND);
    const stored = await lockProtocolOfDraft(tx, protocolId, draft.id);
    if (!stored) throw new AppError(404, PolymerBuilderSystemErrors.UPDATE_NOT_FOUND, { id: protocolId });
    await saveProtocol(tx, stored, body);
    const saved = await findProtocolOfSystem(tx, draft.id);
    return protocolResponse(saved!);
  });
}
