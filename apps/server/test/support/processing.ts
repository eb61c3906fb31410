import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { eq } from "drizzle-orm";
import { expect, vi } from "vitest";
import { SystemProcessingQueue } from "../../src/modules/system-executions/processing";
import { type SystemExecutionRow, systemExecutions } from "../../src/modules/system-executions/schema";
import { systems } from "../../src/modules/systems/schema";
import type { Db } from "../../src/platform/db/database";
import {
  type Caller,
  createPolymer,
  createSegment,
  expectStatus,
  linearBlock,
  linearBlockSegment,
  saveSetup,
  startDraft,
} from "./polymer-builder";
import { waitFor } from "./wait";

export interface TinySystemOptions {
  name?: string;
  /** Copies of the one polymer in the cell. */
  copies?: number;
  /** Ethylene units per chain. */
  units?: number;
  /** A cube of this side (Å); the engine needs at least twice its 10 Å cutoff. */
  cellSide?: number;
  minimizationSteps?: number;
  dynamicsSteps?: number;
  temperature?: number;
  randomSeed?: number;
}

/** A polymer-builder draft made ready through the API (the builder's calls): `copies` chains of
 * polyethylene with `units` units each, and a short protocol. Answers the draft's id. */
export async function polyethyleneDraft(user: Caller, options: TinySystemOptions = {}): Promise<string> {
  const { copies = 3, units = 4, cellSide = 25, minimizationSteps = 50, dynamicsSteps = 100 } = options;
  const draft = await startDraft(user);
  const block = await linearBlock(user);
  await expectStatus(user, 200, "PATCH", `/building_blocks/${block}/draft?draft_status=true`);
  const segment = await createSegment(user, linearBlockSegment(`PE${units}`, [[block, units]]));
  const polymer = await createPolymer(user, "PE", [[segment, 1]]);
  await saveSetup(user, [[polymer, copies]], {
    cell_dimension_selector: "cell_sides",
    cell_sides: [cellSide, cellSide, cellSide],
    density: undefined,
  });
  const protocol = await expectStatus(user, 200, "GET", "/polymer_builder_systems/simulation_protocol/draft");
  await expectStatus(user, 200, "PATCH", `/polymer_builder_systems/simulation_protocol/${protocol.id}`, {
    simulation: "MD",
    random_seed: options.randomSeed ?? 1234,
    minimization: true,
    minimization_steps: minimizationSteps,
    dynamics: true,
    dynamics_steps: dynamicsSteps,
    temperature: options.temperature ?? 300,
    ensemble: "NVT",
  });
  return draft.id;
}

/** The draft of `polyethyleneDraft`, finished. Answers the system body. */
export async function finishedPolyethylene(user: Caller, options: TinySystemOptions = {}) {
  const draftId = await polyethyleneDraft(user, options);
  return expectStatus(user, 200, "PATCH", `/systems/${draftId}/draft`, {
    name: options.name ?? `Tiny PE ${Math.random().toString(36).slice(2, 6)}`,
    is_draft: false,
  });
}

export async function executionRow(db: Db, id: string): Promise<SystemExecutionRow> {
  const [row] = await db.select().from(systemExecutions).where(eq(systemExecutions.id, id));
  if (!row) throw new Error(`no execution ${id}`);
  return row;
}

/** Waits until the execution reaches one of `statuses`. */
export function waitForStatus(db: Db, id: string, statuses: string[], timeoutMs = 60_000) {
  return waitFor(
    `execution ${id} to be ${statuses.join(" or ")}`,
    async () => {
      const row = await executionRow(db, id);
      return statuses.includes(row.status) ? row : undefined;
    },
    timeoutMs,
  );
}

/** `finishedPolyethylene` with its processing started. Answers the system's and the execution's ids. */
export async function startedPolyethylene(user: Caller, options: TinySystemOptions = {}) {
  const system = await finishedPolyethylene(user, options);
  const execution = await expectStatus(user, 201, "POST", `/systems/${system.id}/process/start`);
  return { systemId: system.id as string, executionId: execution.id as string };
}

/** Polls GET /systems/:id until its system_data.status is one of `statuses`. Answers the system. */
export function waitForSystemStatus(
  user: Caller,
  id: string,
  what: string,
  statuses: string[],
  timeoutMs: number,
  intervalMs: number,
) {
  return waitFor(
    what,
    async () => {
      const body = await expectStatus(user, 200, "GET", `/systems/${id}`);
      return statuses.includes(body.system_data.status) ? body : undefined;
    },
    timeoutMs,
    intervalMs,
  );
}

/** Sends `smiles` to the SMILES system `id` and waits until it is converted, failing at once if the
 * conversion fails or errs. */
export async function convertSmiles(user: Caller, id: string, smiles: string, timeoutMs: number, intervalMs: number) {
  await expectStatus(user, 202, "POST", `/systems/${id}/smiles`, { smiles });
  await waitFor(
    `${smiles} converted`,
    async () => {
      const system = await expectStatus(user, 200, "GET", `/systems/${id}`);
      expect(system.system_data.status).not.toMatch(/failed|error/);
      return system.system_data.status === "converted" ? true : undefined;
    },
    timeoutMs,
    intervalMs,
  );
}

/** Replaces the system's frozen engine job by one the engine refuses (its run ends in an error). */
export async function spoilEngineJob(db: Db, systemId: string): Promise<void> {
  await db
    .update(systems)
    .set({ engineJob: { not: "a build job" } })
    .where(eq(systems.id, systemId));
}

/** The engine processes whose command line names this job (its work directory carries the job's
 * id): their command lines. */
export async function enginesOf(jobId: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)("ps", ["-eo", "args"]);
  return stdout.split("\n").filter((line) => line.includes("polyforge_engine") && line.includes(jobId));
}

/**
 * Counts the processing queue's finished claims (every runner's) from now on: a test that expects a
 * runner to leave a job alone waits until the runner has looked for work some times, each of which
 * would have taken the job. `stop` ends the count.
 */
export function watchClaims() {
  const claim = vi.spyOn(SystemProcessingQueue.prototype, "claim");
  // A claim still running leaves a hole in settledResults, which filter skips.
  const finished = () => claim.mock.settledResults.filter(Boolean).length;
  return {
    async more(count: number): Promise<void> {
      const from = finished();
      await waitFor(`${count} more claims`, async () => (finished() - from >= count ? true : undefined));
    },
    stop: () => claim.mockRestore(),
  };
}
