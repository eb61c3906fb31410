import { stat } from "node:fs/promises";
import { basename, join, resolve, sep } from "node:path";
import { type StructureResultPayload, structureResultPayload } from "@polyforge/contracts/engine-results";
import type { SystemType } from "@polyforge/contracts/enums";
import type { MolecularSystemData, StructureProblem, StructureSummary } from "@polyforge/contracts/molecular-systems";
import { fileExtension } from "@polyforge/contracts/uploads";
import type { Db } from "../../platform/db/database";
import type { ClaimRequest } from "../../platform/jobs/claim";
import type { EngineOutcome } from "../../platform/jobs/engine-process";
import {
  type EngineCall,
  EngineJobQueue,
  type EngineQueueOptions,
  type EngineRun,
} from "../../platform/jobs/engine-queue";
import type { ExecutorOutcome } from "../../platform/jobs/executor";
import { resultPaths } from "../../platform/jobs/results";
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

export interface StructureJobOptions extends EngineQueueOptions {
  db: Db;
  store: FileStore;
}

/** A claimed validate-structure or convert-smiles job, as the runner holds it. */
export type StructureJob = StructureJobRow;

/**
 * validate-structure and convert-smiles jobs (`structure_jobs`), run by a JobRunner like system
 * processing: the claimed job moves the system to validating / converting, the engine's answer to
 * valid / invalid / error or converted / failed / error, each change pushed to the owner.
 */
export class StructureJobQueue extends EngineJobQueue<StructureJobRow, JobOutcome> {
  protected readonly kind = "structure job";
  protected readonly logKey = "jobId";

  constructor(private readonly options: StructureJobOptions) {
    super(options);
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

  // On the shared path for Slurm: the compute node reads the upload and writes the results there.
  protected workdirName(job: StructureJobRow): string {
    return `structure-${job.id}`;
  }

  /** validate-structure on the upload, copied into the workdir (streamed from S3); or
   * convert-smiles. Neither is followed again after a restart (a short job is submitted anew), so
   * no scheduler job id. */
  protected async prepare(job: StructureJobRow, { workdir }: EngineRun): Promise<EngineCall> {
    if (job.kind === "convert-smiles")
      return engineCall("convert-smiles", { smiles: String(job.input.smiles) }, workdir);
    // The local copy keeps the user's file name (sanitised), so the engine's messages name it.
    const local = join(workdir, safeFileName(String(job.input.file), "file"));
    await this.options.store.download(String(job.input.key), local);
    return engineCall("validate-structure", { file: local, viewer_file: viewerPath(workdir) }, workdir);
  }

  protected interpret(job: StructureJobRow, outcome: ExecutorOutcome, { workdir }: EngineRun): Promise<JobOutcome> {
    const result: EngineOutcome =
      outcome.kind === "cancelled" ? { kind: "error", code: "CANCELLED", message: outcome.message } : outcome;
    return job.kind === "validate-structure"
      ? this.validated(job, result, workdir)
      : this.converted(job, result, workdir);
  }

  /** The validation's answer; a valid file's viewer structure is kept. */
  private async validated(job: StructureJobRow, outcome: EngineOutcome, workdir: string): Promise<JobOutcome> {
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
    const viewer = await this.keep(job.systemId, workdir, payload.viewer_file ?? viewerPath(workdir), VIEWER_FILE);
    return { status: "valid", summary: structureSummaryOf(payload, viewer ? VIEWER_FILE : null) };
  }

  /** The conversion's answer; the structure it wrote is kept (PDB for the viewer, GRO, SDF). */
  private async converted(job: StructureJobRow, outcome: EngineOutcome, workdir: string): Promise<JobOutcome> {
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

  /** Stores a file the engine wrote in its workdir under the system's structure files. */
  private async keep(systemId: string, workdir: string, path: string, name: string): Promise<boolean> {
    const absolute = resolve(workdir, path);
    if (!absolute.startsWith(resolve(workdir) + sep)) return false;
    if (!(await stat(absolute).catch(() => undefined))?.isFile()) return false;
    await this.options.store.put(structureKey(systemId, name), absolute);
    return true;
  }

  /** Records the outcome on the system if the job is still this runner's, and pushes it. */
  protected async record(job: StructureJobRow, { runnerId }: EngineRun, outcome: JobOutcome): Promise<void> {
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

  protected failed(): JobOutcome {
    return {
      status: "error",
      problem: { code: "PROCESSING_FAILED", message: "The structure could not be processed. Try again.", line: null },
    };
  }

  protected async release(job: StructureJobRow, { runnerId }: EngineRun): Promise<void> {
    await releaseStructureJob(this.options.db, job.id, runnerId);
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

/** The engine call of a structure job, named for the scheduler by its command and workdir. */
function engineCall(command: string, input: object, workdir: string): EngineCall {
  return { command, input, jobName: `polyforge-${command}-${basename(workdir)}` };
}

/** Where validate-structure writes the viewer's PDB. */
function viewerPath(workdir: string): string {
  return join(workdir, "viewer.pdb");
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
