import { rm, stat, writeFile } from "node:fs/promises";
import { basename, join, resolve, sep } from "node:path";
import { type StructureResultPayload, structureResultPayload } from "@polyforge/contracts/engine-results";
import type { SystemType } from "@polyforge/contracts/enums";
import type { MolecularSystemData, StructureProblem, StructureSummary } from "@polyforge/contracts/molecular-systems";
import { fileExtension } from "@polyforge/contracts/uploads";
import type { FastifyBaseLogger } from "fastify";
import type { Db } from "../../platform/db/database";
import type { ClaimRequest } from "../../platform/jobs/claim";
import type { EngineOutcome } from "../../platform/jobs/engine-process";
import { type EngineExecutor, LocalExecutor } from "../../platform/jobs/executor";
import { resultPaths } from "../../platform/jobs/results";
import type { JobContext, JobQueue } from "../../platform/jobs/runner";
import { openWorkdir } from "../../platform/jobs/workdirs";
import { safeFileName } from "../../platform/paths";
import type { FileStore } from "../../platform/storage/file-store";
import { findSystemById, updateMolecularData } from "../systems/queries";
import {
  claimStructureJob,
  finishStructureJob,
  giveUpStructureJobs,
  molecularData,
  notifySystemStatus,
  releaseStructureJob,
  renewStructureJob,
} from "./repository";
import type { StructureJobRow } from "./schema";

/** A job taken back this many times (its runner kept dying) ends the system in error. */
export const MAX_STRUCTURE_ATTEMPTS = 3;

/** Engine outcomes that say the run itself broke, not the user's input. */
const RUNNER_FAILURES = new Set(["ENGINE_CRASHED", "ENGINE_NOT_FOUND", "INVALID_INPUT"]);

/** Where a system's structure files live in the file store. */
export function structureKey(systemId: string, name: string): string {
  return `molecular-systems/${systemId}/${name}`;
}

/** The uploaded file, kept under its extension (the engine reads the format from it). */
export function uploadKey(systemId: string, fileName: string): string {
  return structureKey(systemId, `upload${fileExtension(fileName)}`);
}

/** The viewer's structure of any molecular system. */
export const VIEWER_FILE = "structure.pdb";

/** The system statuses a job moves from, by kind (ARCHITECTURE §7b). */
const PHASES = {
  "validate-structure": { queued: "pending_validation", running: "validating" },
  "convert-smiles": { queued: "converting", running: "converting" },
} as const;

export interface StructureJobOptions {
  db: Db;
  store: FileStore;
  workRoot: string;
  logger: FastifyBaseLogger;
  /** Where the engine runs (POLYFORGE_EXECUTOR): here by default, or on Slurm. */
  executor?: EngineExecutor;
}

/** A claimed validate-structure or convert-smiles job, as the runner holds it. */
export type StructureJob = StructureJobRow;

/**
 * validate-structure and convert-smiles jobs (`structure_jobs`), run by a JobRunner like system
 * processing: the claimed job moves the system to validating / converting, the engine's answer to
 * valid / invalid / error or converted / failed / error, each change pushed to the owner.
 */
export class StructureJobQueue implements JobQueue<StructureJobRow> {
  private readonly executor: EngineExecutor;

  constructor(private readonly options: StructureJobOptions) {
    this.executor = options.executor ?? new LocalExecutor(1);
  }

  async claim(request: ClaimRequest): Promise<StructureJobRow | undefined> {
    const { db } = this.options;
    await this.giveUpInterrupted();
    const job = await claimStructureJob(db, request);
    if (!job) return undefined;
    const phase = PHASES[job.kind];
    const system = await findSystemById(db, job.systemId);
    // A conversion is already shown converting from Save on: nothing new to push.
    if (system && molecularData(system).status !== phase.running) {
      const moved = await updateMolecularData(
        db,
        system.id,
        { ...molecularData(system), status: phase.running },
        { fromStatuses: [phase.queued, phase.running] },
      );
      if (moved) await notifySystemStatus(db, moved);
    }
    return job;
  }

  renew(job: StructureJobRow, runnerId: string, leaseMs: number): Promise<boolean> {
    return renewStructureJob(this.options.db, job.id, runnerId, leaseMs);
  }

  async run(job: StructureJobRow, { runnerId, signal }: JobContext): Promise<void> {
    const { logger } = this.options;
    // On the shared path for Slurm: the compute node reads the upload and writes the results there.
    const workdir = this.executor.workdirFor(resolve(this.options.workRoot), `structure-${job.id}`, job.attempts);
    try {
      await openWorkdir(this.executor, workdir, runnerId);
      const outcome =
        job.kind === "validate-structure"
          ? await this.validate(job, workdir, signal)
          : await this.convert(job, workdir, signal);
      if (signal.aborted) {
        // Taken back or cancelled: the job is no longer ours to write. On shutdown, hand it back.
        if (signal.reason === "shutdown") await releaseStructureJob(this.options.db, job.id, runnerId);
        return;
      }
      await this.finish(job, runnerId, outcome);
    } catch (err) {
      logger.error({ err, jobId: job.id }, "structure job failed");
      if (signal.aborted) return;
      await this.finish(job, runnerId, {
        status: "error",
        problem: { code: "PROCESSING_FAILED", message: "The structure could not be processed. Try again.", line: null },
      }).catch((finishErr: unknown) => logger.error({ err: finishErr }, "recording a failed structure job failed"));
    } finally {
      await rm(workdir, { recursive: true, force: true });
    }
  }

  /** Copies the upload into the workdir (streamed from S3) and runs validate-structure on it. */
  private async validate(job: StructureJobRow, workdir: string, signal: AbortSignal): Promise<JobOutcome> {
    const key = String(job.input.key);
    const fileName = String(job.input.file);
    // The local copy keeps the user's file name (sanitised), so the engine's messages name it.
    const local = join(workdir, safeFileName(fileName, "file"));
    await this.options.store.download(key, local);
    const viewerPath = join(workdir, "viewer.pdb");
    const outcome = await this.engine("validate-structure", { file: local, viewer_file: viewerPath }, workdir, signal);
    if (outcome.kind === "error") return { status: "error", problem: engineProblem(outcome, workdir) };
    const payload = structureResultPayload.parse(outcome.payload);
    if (payload.valid === false) {
      return {
        status: "invalid",
        problem: {
          code: payload.error_code,
          message: scrubPaths(payload.message ?? "The file is not a valid structure.", workdir),
          line: payload.line,
        },
      };
    }
    const viewer = await this.keep(job.systemId, workdir, payload.viewer_file ?? viewerPath, VIEWER_FILE);
    return { status: "valid", summary: structureSummaryOf(payload, viewer ? VIEWER_FILE : null) };
  }

  /** Runs convert-smiles and keeps the structure it wrote (PDB for the viewer, GRO, SDF). */
  private async convert(job: StructureJobRow, workdir: string, signal: AbortSignal): Promise<JobOutcome> {
    const outcome = await this.engine("convert-smiles", { smiles: String(job.input.smiles) }, workdir, signal);
    if (outcome.kind === "error") {
      return {
        status: RUNNER_FAILURES.has(outcome.code) ? "error" : "failed",
        problem: engineProblem(outcome, workdir),
      };
    }
    const files = resultPaths(outcome.payload);
    let viewer: string | null = null;
    for (const file of files) {
      const name = `structure${fileExtension(file)}`;
      if (await this.keep(job.systemId, workdir, file, name)) viewer ??= name === VIEWER_FILE ? name : null;
    }
    return { status: "converted", summary: structureSummaryOf(structureResultPayload.parse(outcome.payload), viewer) };
  }

  private async engine(command: string, input: object, workdir: string, signal: AbortSignal): Promise<EngineOutcome> {
    const inputPath = join(workdir, "job.json");
    await writeFile(inputPath, JSON.stringify(input));
    // Not followed again after a restart (a short job is submitted anew), so no scheduler job id.
    const outcome = await this.executor.run({
      command,
      inputPath,
      workdir,
      signal,
      onProgress: () => {},
      jobName: `polyforge-${command}-${basename(workdir)}`,
      input,
    });
    return outcome.kind === "cancelled" ? { kind: "error", code: "CANCELLED", message: outcome.message } : outcome;
  }

  /** Stores a file the engine wrote in its workdir under the system's structure files. */
  private async keep(systemId: string, workdir: string, path: string, name: string): Promise<boolean> {
    const absolute = resolve(workdir, path);
    if (!absolute.startsWith(resolve(workdir) + sep)) return false;
    if (!(await stat(absolute).catch(() => undefined))?.isFile()) return false;
    await this.options.store.put(structureKey(systemId, name), absolute);
    return true;
  }

  /** Records the outcome on the system if the job is still this runner's, and pushes it. */
  private async finish(job: StructureJobRow, runnerId: string, outcome: JobOutcome): Promise<void> {
    const { db } = this.options;
    await db.transaction(async (tx) => {
      if (!(await finishStructureJob(tx, job.id, runnerId))) return;
      const system = await findSystemById(tx, job.systemId);
      if (!system) return;
      const phase = PHASES[job.kind];
      const data: MolecularSystemData = {
        ...molecularData(system),
        status: outcome.status,
        structure: outcome.summary ?? null,
        problem: outcome.problem ?? null,
      };
      const type: SystemType = outcome.summary?.type ?? "not_defined";
      const moved = await updateMolecularData(
        tx,
        system.id,
        data,
        { fromStatuses: [phase.queued, phase.running] },
        type,
      );
      if (moved) await notifySystemStatus(tx, moved);
    });
  }

  /** Jobs interrupted MAX_STRUCTURE_ATTEMPTS times end their systems in error instead of looping. */
  private async giveUpInterrupted(): Promise<void> {
    const { db } = this.options;
    for (const job of await giveUpStructureJobs(db, MAX_STRUCTURE_ATTEMPTS)) {
      const system = await findSystemById(db, job.systemId);
      if (!system) continue;
      const phase = PHASES[job.kind];
      const moved = await updateMolecularData(
        db,
        system.id,
        {
          ...molecularData(system),
          status: "error",
          problem: {
            code: "INTERRUPTED",
            message: `This was interrupted ${MAX_STRUCTURE_ATTEMPTS} times (the server running it stopped). Try again.`,
            line: null,
          },
        },
        { fromStatuses: [phase.queued, phase.running] },
      );
      if (moved) await notifySystemStatus(db, moved);
    }
  }
}

interface JobOutcome {
  status: string;
  summary?: StructureSummary;
  problem?: StructureProblem;
}

function engineProblem(outcome: { code: string; message: string }, workdir: string): StructureProblem {
  return { code: outcome.code, message: scrubPaths(outcome.message, workdir), line: null };
}

/** A message about the user's input never shows where the server keeps its files. */
export function scrubPaths(message: string, workdir: string): string {
  return message
    .split(`${resolve(workdir)}${sep}`)
    .join("")
    .split(resolve(workdir))
    .join("");
}

/** The engine's summary read defensively: fields an older engine does not report get their
 * "unknown" value rather than failing the job. */
export function structureSummaryOf(payload: StructureResultPayload, viewerFile: string | null): StructureSummary {
  const { atoms, residues, molecules, kinds, formula, net_charge, box, type } = payload;
  return { atoms, residues, molecules, kinds, formula, net_charge, box, type, viewer_file: viewerFile };
}
