import { type EngineJob, engineJobSchema } from "@polyforge/contracts/engine-job";
import type { SystemType, Tacticity } from "@polyforge/contracts/enums";
import { SystemErrors } from "@polyforge/contracts/errors";
import { DEFAULT_JOB_LIMITS, type JobLimits, jobLimitProblem } from "@polyforge/contracts/job-limits";
import { NPT_WALLS_MESSAGE, usesBarostat } from "@polyforge/contracts/polymer-builder";
import { systemTypeFor } from "@polyforge/contracts/systems";
import type { Db } from "../../platform/db/database";
import { AppError } from "../../platform/errors";
import { blocksByIds } from "../building-blocks/queries";
import { polymersByIds, segmentsOfPolymers } from "../polymers/queries";
import { blocksOfSegments, segmentsByIds } from "../segments/queries";
import type { SystemRow } from "../systems/queries";
import { findProtocolOfSystem, findSetupOfSystem, type PlacedPolymer, setupPolymers } from "./repository";
import type { SimulationProtocolRow, SystemSetupRow } from "./schema";

export interface FrozenSystem {
  engineJob: EngineJob;
  /** SPEC §3 system_data of a polymer-builder system, read by the system detail summary. */
  systemData: Record<string, unknown>;
  type: SystemType;
}

function missing(what: string): AppError {
  return new AppError(400, SystemErrors.VALIDATE_SYSTEM_DATA_NOT_FOUND, { missing: what });
}

/** The engine's data of a block: aminoacids carry their residue SMILES as `smiles`. */
function engineBlockData(type: string, data: Record<string, string>): Record<string, string> {
  if (type === "aminoacid") {
    return {
      one_letter_code: data.one_letter_code ?? "",
      three_letter_code: data.three_letter_code ?? "",
      smiles: data.smiles ?? data.repeating_unit ?? "",
    };
  }
  return data;
}

/** A polymer's tacticity as the engine reads it: the meso fraction only where it applies (atactic). */
function engineTacticity(polymer: { tacticity: Tacticity; mesoFraction: number }): {
  kind: Tacticity;
  meso_fraction?: number;
} {
  return polymer.tacticity === "atactic"
    ? { kind: "atactic", meso_fraction: polymer.mesoFraction }
    : { kind: polymer.tacticity };
}

/** What finishing a draft freezes of its settings: the setup, the protocol and the placed polymers
 * (none while there is no setup). */
async function draftSettings(
  db: Db,
  systemId: string,
): Promise<{ setup?: SystemSetupRow; protocol?: SimulationProtocolRow; placed: PlacedPolymer[] }> {
  const setup = await findSetupOfSystem(db, systemId);
  const protocol = await findProtocolOfSystem(db, systemId);
  return { setup, protocol, placed: setup ? await setupPolymers(db, setup.id) : [] };
}

type DraftSettings = Awaited<ReturnType<typeof draftSettings>>;
type ReadySettings = {
  setup: NonNullable<DraftSettings["setup"]>;
  protocol: NonNullable<DraftSettings["protocol"]>;
  placed: DraftSettings["placed"];
};

/** Throws the SPEC's "not found" error for whatever the draft still lacks; returns its settings. */
function readySettings({ setup, protocol, placed }: DraftSettings): ReadySettings {
  if (!setup?.savedAt) throw missing("system_setup");
  if (!protocol) throw missing("simulation_protocol");
  if (setup.potentialWallZ && usesBarostat(protocol)) {
    throw new AppError(400, SystemErrors.VALIDATE_SYSTEM_DATA_NOT_FOUND, {
      field: "simulation_protocol.ensemble",
      message: NPT_WALLS_MESSAGE,
    });
  }
  if (placed.length === 0) throw missing("polymers");
  return { setup, protocol, placed };
}

/**
 * The placed polymers, their segments and those segments' blocks, read once through each owning
 * module's queries, with lookups by id and by parent.
 */
async function readComposition(tx: Db, polymerIds: string[]) {
  const polymerRows = await polymersByIds(tx, polymerIds);
  const links = await segmentsOfPolymers(tx, polymerIds);
  const segmentIds = [...new Set(links.map((l) => l.segmentId))];
  const segmentRows = await segmentsByIds(tx, segmentIds);
  const blockLinks = await blocksOfSegments(tx, segmentIds);
  const blockRows = await blocksByIds(tx, [...new Set(blockLinks.map((b) => b.buildingBlockId))]);
  return {
    polymerRows,
    segmentRows,
    blockRows,
    polymerById: new Map(polymerRows.map((p) => [p.id, p])),
    segmentById: new Map(segmentRows.map((s) => [s.id, s])),
    blockById: new Map(blockRows.map((b) => [b.id, b])),
    segmentBlocksOf: (segmentId: string) => blockLinks.filter((b) => b.segmentId === segmentId),
    segmentsOf: (polymerId: string) => links.filter((l) => l.polymerId === polymerId),
  };
}

type Composition = Awaited<ReturnType<typeof readComposition>>;

/** The setup and protocol in the engine job's snake_case shape. */
function engineSettings({ setup, protocol, placed }: ReadySettings) {
  return {
    system_setup: {
      cell_dimension_selector: setup.cellDimensionSelector,
      density: setup.density,
      cell_sides: setup.cellSides,
      potential_wall_z: setup.potentialWallZ,
      construction_order: setup.constructionOrder,
      polymers: placed.map((p) => ({ polymer_id: p.polymer_id, order: p.order, occurrence: p.occurrence })),
    },
    simulation_protocol: {
      simulation: protocol.simulation,
      random_seed: protocol.randomSeed,
      minimization: protocol.minimization,
      minimization_steps: protocol.minimizationSteps,
      dynamics: protocol.dynamics,
      dynamics_steps: protocol.dynamicsSteps,
      temperature: protocol.temperature,
      ensemble: protocol.ensemble,
      pressure: protocol.pressure,
      equilibration: protocol.equilibration,
    },
  };
}

/** The blocks, segments and polymers in the engine job's shape (ARCHITECTURE §5). */
function engineComposition(c: Composition) {
  return {
    blocks: c.blockRows.map((b) => ({ id: b.id, name: b.name, type: b.type, data: engineBlockData(b.type, b.data) })),
    segments: c.segmentRows.map((s) => ({
      id: s.id,
      name: s.name,
      type: s.type,
      data: {
        total_building_blocks: s.data.total_building_blocks,
        ...(s.data.capping_type ? { capping_type: s.data.capping_type } : {}),
      },
      blocks: c.segmentBlocksOf(s.id).map((b) => ({
        building_block_id: b.buildingBlockId,
        order: b.blockOrder,
        ...(b.occurrence !== null ? { occurrence: b.occurrence } : {}),
        ...(b.ratio !== null ? { ratio: b.ratio } : {}),
      })),
    })),
    polymers: c.polymerRows.map((p) => ({
      id: p.id,
      name: p.name,
      force_field: p.forceField,
      segments: c.segmentsOf(p.id).map((l) => ({
        segment_id: l.segmentId,
        occurrence: l.occurrence,
        order: l.segmentOrder,
      })),
      tacticity: engineTacticity(p),
    })),
  };
}

/** Checks the job against the engine's schema and the server's limits; returns the parsed job. */
function checkedJob(job: unknown, limits: JobLimits): EngineJob {
  const parsed = engineJobSchema.safeParse(job);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AppError(400, SystemErrors.VALIDATE_SYSTEM_DATA_NOT_FOUND, {
      field: issue.path.join("."),
      message: issue.message,
    });
  }
  const beyondLimits = jobLimitProblem(parsed.data, limits);
  if (beyondLimits) throw new AppError(400, SystemErrors.VALIDATE_JOB_LIMIT, { ...beyondLimits });
  return parsed.data;
}

/** One placed polymer with its segments and blocks, named, for the system detail summary. */
function placedPolymerSummary(p: ReadySettings["placed"][number], c: Composition) {
  const polymer = c.polymerById.get(p.polymer_id)!;
  return {
    id: p.polymer_id,
    name: p.name,
    order: p.order,
    occurrence: p.occurrence,
    force_field: polymer.forceField,
    tacticity: engineTacticity(polymer),
    segments: c.segmentsOf(p.polymer_id).map((l) => {
      const segment = c.segmentById.get(l.segmentId)!;
      return {
        id: segment.id,
        name: segment.name,
        type: segment.type,
        order: l.segmentOrder,
        occurrence: l.occurrence,
        data: segment.data,
        blocks: c.segmentBlocksOf(segment.id).map((b) => {
          const block = c.blockById.get(b.buildingBlockId)!;
          return {
            building_block_id: block.id,
            name: block.name,
            type: block.type,
            order: b.blockOrder,
            occurrence: b.occurrence,
            ratio: b.ratio,
          };
        }),
      };
    }),
  };
}

/** SPEC §3 system_data: the protocol, the setup and the placed polymers as the summary shows them. */
function systemDataOf(
  settings: ReadySettings,
  simulationProtocol: Record<string, unknown>,
  c: Composition,
): Record<string, unknown> {
  const { setup, placed } = settings;
  return {
    ...simulationProtocol,
    construction_order: setup.constructionOrder,
    cell_dimension_selector: setup.cellDimensionSelector,
    density: setup.density,
    cell_sides: setup.cellSides,
    potential_wall_z: setup.potentialWallZ,
    polymers: placed.map((p) => placedPolymerSummary(p, c)),
  };
}

/** Single or mixture: several entries of one polymer count as one kind. */
function systemTypeOfPlaced(placed: ReadySettings["placed"]): SystemType {
  const copiesByPolymer = new Map<string, number>();
  for (const p of placed) copiesByPolymer.set(p.polymer_id, (copiesByPolymer.get(p.polymer_id) ?? 0) + p.occurrence);
  return systemTypeFor([...copiesByPolymer.values()]);
}

/**
 * Reads everything the draft's setup uses — polymers, their segments, those segments' blocks — and
 * freezes it as the engine job (ARCHITECTURE §5/§6), checked against the engine's schema and the
 * server's job limits.
 */
export async function freezeDraft(
  tx: Db,
  system: SystemRow,
  name: string,
  sanitizedName: string,
  limits: JobLimits = DEFAULT_JOB_LIMITS,
): Promise<FrozenSystem> {
  const settings = readySettings(await draftSettings(tx, system.id));
  const composition = await readComposition(
    tx,
    settings.placed.map((p) => p.polymer_id),
  );
  const { system_setup, simulation_protocol } = engineSettings(settings);
  const job = {
    system: { id: system.id, name, sanitized_name: sanitizedName },
    ...engineComposition(composition),
    system_setup,
    simulation_protocol,
  };
  return {
    engineJob: checkedJob(job, limits),
    systemData: systemDataOf(settings, simulation_protocol, composition),
    type: systemTypeOfPlaced(settings.placed),
  };
}
