import {
  DEFAULT_CELL_SIDE,
  DEFAULT_DENSITY,
  DEFAULT_SIMULATION_PROTOCOL,
  type SimulationProtocolBody,
  type SimulationProtocolResponse,
  type SystemSetupBody,
  type SystemSetupResponse,
} from "@polyforge/contracts/polymer-builder";
import { and, asc, eq } from "drizzle-orm";
import type { Db } from "../../platform/db/database";
import { polymersByIds } from "../polymers/queries";
import {
  type SimulationProtocolRow,
  type SystemSetupRow,
  simulationProtocols,
  systemSetupPolymers,
  systemSetups,
} from "./schema";

/** A new draft's setup (SPEC §9 defaults, not yet saved) and protocol (counts as complete). */
export async function insertDraftSettings(tx: Db, ownerId: string, systemId: string): Promise<void> {
  await tx.insert(systemSetups).values({
    ownerId,
    systemId,
    cellDimensionSelector: "density",
    density: DEFAULT_DENSITY,
    cellSides: [DEFAULT_CELL_SIDE, DEFAULT_CELL_SIDE, DEFAULT_CELL_SIDE],
    potentialWallZ: false,
    constructionOrder: "as_listed_in_components",
  });
  const p = DEFAULT_SIMULATION_PROTOCOL;
  await tx.insert(simulationProtocols).values({
    ownerId,
    systemId,
    simulation: p.simulation,
    randomSeed: p.random_seed,
    minimization: p.minimization,
    minimizationSteps: p.minimization_steps,
    dynamics: p.dynamics,
    dynamicsSteps: p.dynamics_steps,
    temperature: p.temperature,
    ensemble: p.ensemble,
    pressure: p.pressure,
    equilibration: p.equilibration,
  });
}

export async function findSetupOfSystem(db: Db, systemId: string): Promise<SystemSetupRow | undefined> {
  const [row] = await db.select().from(systemSetups).where(eq(systemSetups.systemId, systemId));
  return row;
}

export async function findProtocolOfSystem(db: Db, systemId: string): Promise<SimulationProtocolRow | undefined> {
  const [row] = await db.select().from(simulationProtocols).where(eq(simulationProtocols.systemId, systemId));
  return row;
}

/** A polymer placed in a system setup. */
export interface PlacedPolymer {
  polymer_id: string;
  name: string;
  order: number;
  occurrence: number;
}

/** The setup's polymers in order, with their names. */
export async function setupPolymers(db: Db, setupId: string): Promise<PlacedPolymer[]> {
  const placed = await db
    .select()
    .from(systemSetupPolymers)
    .where(eq(systemSetupPolymers.setupId, setupId))
    .orderBy(asc(systemSetupPolymers.polymerOrder));
  const names = new Map(
    (await polymersByIds(db, [...new Set(placed.map((p) => p.polymerId))])).map((p) => [p.id, p.name]),
  );
  return placed.map((p) => ({
    polymer_id: p.polymerId,
    name: names.get(p.polymerId)!,
    order: p.polymerOrder,
    occurrence: p.occurrence,
  }));
}

export async function setupResponse(db: Db, row: SystemSetupRow): Promise<SystemSetupResponse> {
  return {
    id: row.id,
    polymers: await setupPolymers(db, row.id),
    cell_dimension_selector: row.cellDimensionSelector,
    density: row.density,
    cell_sides: row.cellSides,
    potential_wall_z: row.potentialWallZ,
    construction_order: row.constructionOrder,
    saved: row.savedAt !== null,
  };
}

export function protocolResponse(row: SimulationProtocolRow): SimulationProtocolResponse {
  return {
    id: row.id,
    simulation: row.simulation,
    random_seed: row.randomSeed,
    minimization: row.minimization,
    minimization_steps: row.minimizationSteps,
    dynamics: row.dynamics,
    dynamics_steps: row.dynamicsSteps,
    temperature: row.temperature,
    ensemble: row.ensemble,
    pressure: row.pressure,
    equilibration: row.equilibration,
  };
}

/** Replaces the setup's values and polymers, and marks it saved. */
export async function saveSetup(tx: Db, setupId: string, body: SystemSetupBody): Promise<void> {
  await tx
    .update(systemSetups)
    .set({
      cellDimensionSelector: body.cell_dimension_selector,
      // The value of the other selector is kept as the user last typed it, when sent.
      ...(body.density != null ? { density: body.density } : {}),
      ...(body.cell_sides != null ? { cellSides: body.cell_sides } : {}),
      potentialWallZ: body.potential_wall_z,
      constructionOrder: body.construction_order,
      savedAt: new Date(),
      updatedAt: new Date(),
    })
    .where(eq(systemSetups.id, setupId));
  await tx.delete(systemSetupPolymers).where(eq(systemSetupPolymers.setupId, setupId));
  await tx.insert(systemSetupPolymers).values(
    body.polymers.map((p) => ({
      setupId,
      polymerId: p.polymer_id,
      polymerOrder: p.order,
      occurrence: p.occurrence,
    })),
  );
}

/** SPEC §5: a toggle that is off keeps the stored values when none are sent. */
export async function saveProtocol(tx: Db, row: SimulationProtocolRow, body: SimulationProtocolBody): Promise<void> {
  await tx
    .update(simulationProtocols)
    .set({
      simulation: body.simulation,
      randomSeed: body.random_seed,
      minimization: body.minimization,
      minimizationSteps: body.minimization_steps ?? row.minimizationSteps,
      dynamics: body.dynamics,
      dynamicsSteps: body.dynamics_steps ?? row.dynamicsSteps,
      temperature: body.temperature ?? row.temperature,
      ensemble: body.ensemble ?? row.ensemble,
      pressure: body.pressure ?? row.pressure,
      equilibration: body.equilibration ?? row.equilibration,
      updatedAt: new Date(),
    })
    .where(eq(simulationProtocols.id, row.id));
}

/** Locks the setup row (or protocol row) of the given id if it belongs to the caller's draft. */
export async function lockSetupOfDraft(tx: Db, setupId: string, draftSystemId: string) {
  const [row] = await tx
    .select()
    .from(systemSetups)
    .where(and(eq(systemSetups.id, setupId), eq(systemSetups.systemId, draftSystemId)))
    .for("update");
  return row;
}

export async function lockProtocolOfDraft(tx: Db, protocolId: string, draftSystemId: string) {
  const [row] = await tx
    .select()
    .from(simulationProtocols)
    .where(and(eq(simulationProtocols.id, protocolId), eq(simulationProtocols.systemId, draftSystemId)))
    .for("update");
  return row;
}
