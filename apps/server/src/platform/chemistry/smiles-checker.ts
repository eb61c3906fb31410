import { Worker } from "node:worker_threads";
import type { BlockSmilesField, CreatableBlockType } from "@polyforge/contracts/building-blocks";
import { CommonErrors } from "@polyforge/contracts/errors";
import type { SmilesIssue } from "@polyforge/contracts/smiles/connection-rules";
import type { FastifyBaseLogger } from "fastify";
import { AppError } from "../errors";
import type { SmilesRequest, SmilesResponse } from "./smiles-worker";

/** How long one check may take before the worker counts as hung (a SMILES of a unit takes ms). */
const CHECK_TIMEOUT_MS = 15_000;
/** /api/health reports the toolkit degraded for this long after a fault. */
const FAULT_REPORT_MS = 10 * 60_000;

export interface SmilesCheckerStatus {
  status: "ok" | "degraded";
  faults: number;
  last_fault_at?: string;
  last_fault?: string;
}

type Pending = {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
  worker: Worker;
};
type Work =
  | { kind: "blockIssues"; type: CreatableBlockType; data: Partial<Record<BlockSmilesField, string>> }
  | {
      kind: "parsable";
      smiles: string;
    };

/**
 * RDKit checks run in a worker thread (issue 23): RDKit's WebAssembly module can fail ('memory access
 * out of bounds') and is then unusable for every later call. A failure is a fault, never a verdict
 * on the input: it is logged, the caller gets 503 SMILES_CHECK_UNAVAILABLE, the worker is replaced,
 * and /api/health reports it.
 */
export class SmilesChecker {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private faults = 0;
  private lastFault: { at: Date; message: string } | undefined;
  logger: FastifyBaseLogger | undefined;

  /** The first broken rule of each SMILES field of a block (see smilesIssuesByField). */
  blockIssues(
    type: CreatableBlockType,
    data: Partial<Record<BlockSmilesField, string>>,
  ): Promise<Partial<Record<BlockSmilesField, SmilesIssue>>> {
    return this.run({ kind: "blockIssues", type, data }) as Promise<Partial<Record<BlockSmilesField, SmilesIssue>>>;
  }

  /** True when RDKit reads the SMILES as a non-empty molecule. */
  parsable(smiles: string): Promise<boolean> {
    return this.run({ kind: "parsable", smiles }) as Promise<boolean>;
  }

  status(now = Date.now()): SmilesCheckerStatus {
    const recent = this.lastFault !== undefined && now - this.lastFault.at.getTime() < FAULT_REPORT_MS;
    return {
      status: recent ? "degraded" : "ok",
      faults: this.faults,
      ...(this.lastFault ? { last_fault_at: this.lastFault.at.toISOString(), last_fault: this.lastFault.message } : {}),
    };
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private run(work: Work): Promise<unknown> {
    const worker = this.ensureWorker();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.recordFault(`RDKit check took more than ${CHECK_TIMEOUT_MS / 1000} s`);
        this.failAll(worker);
      }, CHECK_TIMEOUT_MS);
      timer.unref();
      this.pending.set(id, { resolve, reject, timer, worker });
      // An idle worker does not keep the process alive; one with checks in hand does.
      worker.ref();
      worker.postMessage({ id, ...work } as SmilesRequest);
    });
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    // The worker is TypeScript: a small script registers tsx in the thread (as bin/polyforge.js does
    // for the server; Node does not pass `--import` on to workers), then loads it.
    const entry = new URL("./smiles-worker.ts", import.meta.url).href;
    const bootstrap = `import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`;
    const worker = new Worker(bootstrap, { eval: true });
    worker.unref();
    worker.on("message", (response: SmilesResponse) => {
      const entry = this.pending.get(response.id);
      if (!entry) return;
      this.pending.delete(response.id);
      clearTimeout(entry.timer);
      if (this.pending.size === 0) worker.unref();
      if ("fault" in response) {
        this.recordFault(response.fault);
        entry.reject(unavailable());
        // The thread is ending: later checks go to a fresh one.
        this.failAll(worker);
      } else {
        entry.resolve(response.result);
      }
    });
    worker.on("error", (error) => this.recordFault(`RDKit worker error: ${error.message}`));
    worker.on("exit", () => this.failAll(worker));
    this.worker = worker;
    return worker;
  }

  /** The worker is gone or hung: every check it holds fails, and the next check starts a new one. */
  private failAll(worker: Worker): void {
    if (this.worker === worker) this.worker = undefined;
    void worker.terminate();
    for (const [id, entry] of this.pending) {
      if (entry.worker !== worker) continue;
      clearTimeout(entry.timer);
      entry.reject(unavailable());
      this.pending.delete(id);
    }
  }

  private recordFault(message: string): void {
    this.faults += 1;
    this.lastFault = { at: new Date(), message };
    (this.logger ?? console).error({ fault: message }, "RDKit fault: the SMILES worker is restarted");
  }
}

function unavailable(): AppError {
  return new AppError(503, CommonErrors.SMILES_CHECK_UNAVAILABLE);
}

/** The process's checker (the worker starts on first use). */
export const smilesChecker = new SmilesChecker();
