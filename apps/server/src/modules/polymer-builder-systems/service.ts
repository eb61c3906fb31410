import { PolymerBuilderSystemErrors, PolymerErrors } from "@polyforge/contracts/errors";
import {
  type SimulationProtocolBody,
  type SimulationProtocolResponse,
  type SystemSetupBody,
  type SystemSetupResponse,
  simulationProtocolProblem,
  systemSetupProblem,
} from "@polyforge/contracts/polymer-builder";
import type { AuthenticatedUser } from "../../platform/auth/user";
import type { Db } from "../../platform/db/database";
import { AppError } from "../../platform/errors";
import { requireUuid } from "../../platform/ids";
import { polymerIdsInSystem } from "../polymers/queries";
import { requireDraftSystem, ruleError } from "./draft";
import {
  findProtocolOfSystem,
  findSetupOfSystem,
  insertDraftSettings,
  lockProtocolOfDraft,
  lockSetupOfDraft,
  type PlacedPolymer,
  protocolResponse,
  saveProtocol,
  saveSetup,
  setupPolymers,
  setupResponse,
} from "./repository";
import type { SimulationProtocolRow, SystemSetupRow } from "./schema";

/** What finishing a draft freezes of its settings: the setup, the protocol and the placed polymers
 * (none while there is no setup). */
export async function draftSettings(
  db: Db,
  systemId: string,
): Promise<{ setup?: SystemSetupRow; protocol?: SimulationProtocolRow; placed: PlacedPolymer[] }> {
  const setup = await findSetupOfSystem(db, systemId);
  const protocol = await findProtocolOfSystem(db, systemId);
  return { setup, protocol, placed: setup ? await setupPolymers(db, setup.id) : [] };
}

/** A new draft's setup (SPEC §9 defaults, not yet saved) and protocol (for the systems module). */
export async function createDraftSettings(tx: Db, ownerId: string, systemId: string): Promise<void> {
  await insertDraftSettings(tx, ownerId, systemId);
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
