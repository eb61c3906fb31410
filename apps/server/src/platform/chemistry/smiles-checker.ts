import { createHash } from "node:crypto";
import { Worker } from "node:worker_threads";
import type { BlockSmilesField, CreatableBlockType } from "@polyforge/contracts/building-blocks";
import { CommonErrors } from "@polyforge/contracts/errors";
import type { SmilesIssue } from "@polyforge/contracts/smiles/connection-rules";
import type { FastifyBaseLogger } from "fastify";
import { AppError } from "../errors";
import type { SmilesRequest, SmilesResponse, SmilesWork } from "./smiles-worker";

/** How long one check may take once the worker holds it (a unit's SMILES takes milliseconds). */
const CHECK_TIMEOUT_MS = 15_000;
/** A user whose SMILES made the toolkit fail this many times within the window gets no checks until
 * the oldest of those faults has left it: one user's inputs cannot keep the checker down. */
const FAULTS_PER_USER = 3;
const USER_FAULT_WINDOW_MS = 10 * 60_000;
/** SMILES that made the toolkit fail are refused without another try: this many, for this long. */
const REMEMBERED_FAILURES = 10_000;
const REMEMBER_FAILURE_MS = 24 * 60 * 60_000;
/** How long a fresh worker may take to load RDKit and check its known-good SMILES. */
const START_TIMEOUT_MS = 120_000;

export interface SmilesCheckerStatus {
  status: "ok" | "degraded";
  faults: number;
  last_fault_at?: string;
  last_fault?: string;
}

type Check = {
  work: SmilesWork;
  /** Who asked (their faults are counted). */
  userId: string;
  key: string;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
};

/**
 * RDKit checks run in a worker thread: RDKit's WebAssembly module can fail ('memory access out of
 * bounds') or take forever, and is then unusable. The worker takes one check at a time, so a fault
 * belongs to the check it was answering, once the worker has proven sound by checking known-good
 * SMILES as it starts (a worker that cannot start says the toolkit itself is broken: 503, nobody is
 * blamed). That SMILES is refused (400
 * SMILES_CHECK_FAILED) and remembered, so it is refused again without a retry; its sender's faults are
 * counted, and past FAULTS_PER_USER they get 429 SMILES_CHECKS_SUSPENDED for a while. Other users'
 * checks wait for the fresh worker instead of failing. /api/health is degraded while the toolkit
 * has not answered since its last fault.
 */
export class SmilesChecker {
  /** How long one check may take once the worker holds it (tests shorten it to reach a hang soon). */
  checkTimeoutMs = CHECK_TIMEOUT_MS;
  logger: FastifyBaseLogger | undefined;
  private worker: Worker | undefined;
  private workerReady = false;
  private startTimer: NodeJS.Timeout | undefined;
  /** untested until a worker has started, failed from a fault until one has started again. */
  private toolkit: "untested" | "proven" | "failed" = "untested";
  /** After a blamed fault a fresh worker starts at once, so that health does not wait for a user. */
  private restartSoon = false;
  private readonly queue: Check[] = [];
  private current: { id: number; check: Check; worker: Worker; timer: NodeJS.Timeout } | undefined;
  private nextId = 1;
  private faults = 0;
  private lastFault: { at: Date; message: string } | undefined;
  /** Key of a SMILES that made the toolkit fail → when (insertion order is age order). */
  private readonly failedInputs = new Map<string, number>();
  /** User id → times of their recent faults. */
  private readonly userFaults = new Map<string, number[]>();

  /** The first broken rule of each SMILES field of a block (see smilesIssuesByField). */
  blockIssues(
    type: CreatableBlockType,
    data: Partial<Record<BlockSmilesField, string>>,
    userId: string,
  ): Promise<Partial<Record<BlockSmilesField, SmilesIssue>>> {
    return this.check({ kind: "blockIssues", type, data }, userId) as Promise<
      Partial<Record<BlockSmilesField, SmilesIssue>>
    >;
  }

  /** The atoms of a drawn structure with hydrogens, or null when RDKit cannot read it. */
  structureAtoms(smiles: string, userId: string): Promise<number | null> {
    return this.check({ kind: "structureAtoms", smiles }, userId) as Promise<number | null>;
  }

  status(): SmilesCheckerStatus {
    return {
      status: this.toolkit === "failed" ? "degraded" : "ok",
      faults: this.faults,
      ...(this.lastFault ? { last_fault_at: this.lastFault.at.toISOString(), last_fault: this.lastFault.message } : {}),
    };
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private check(work: SmilesWork, userId: string): Promise<unknown> {
    const now = Date.now();
    const key = createHash("sha256").update(JSON.stringify(work)).digest("base64url");
    const failedAt = this.failedInputs.get(key);
    if (failedAt !== undefined && now - failedAt < REMEMBER_FAILURE_MS) {
      return Promise.reject(new AppError(400, CommonErrors.SMILES_CHECK_FAILED));
    }
    const waitMs = this.suspendedForMs(userId, now);
    if (waitMs > 0) {
      const retryAfterSeconds = Math.ceil(waitMs / 1000);
      return Promise.reject(
        new AppError(429, CommonErrors.SMILES_CHECKS_SUSPENDED, {
          retry_after_seconds: retryAfterSeconds,
          minutes: Math.ceil(retryAfterSeconds / 60),
        }),
      );
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ work, userId, key, resolve, reject });
      this.next();
    });
  }

  /** How long this user's checks are refused for, or 0. */
  private suspendedForMs(userId: string, now: number): number {
    const recent = (this.userFaults.get(userId) ?? []).filter((at) => now - at < USER_FAULT_WINDOW_MS);
    if (recent.length === 0) this.userFaults.delete(userId);
    else this.userFaults.set(userId, recent);
    if (recent.length < FAULTS_PER_USER) return 0;
    return recent[recent.length - FAULTS_PER_USER]! + USER_FAULT_WINDOW_MS - now;
  }

  /** Hands the next check to the worker once it is idle and ready. */
  private next(): void {
    if (this.current || (this.queue.length === 0 && !this.restartSoon)) return;
    const worker = this.ensureWorker();
    const check = this.workerReady ? this.queue.shift() : undefined;
    if (!check) return;
    const id = this.nextId++;
    const timer = setTimeout(
      () => this.fault(id, `RDKit check took more than ${this.checkTimeoutMs / 1000} s`),
      this.checkTimeoutMs,
    );
    timer.unref();
    this.current = { id, check, worker, timer };
    // An idle worker does not keep the process alive; one with a check in hand does.
    worker.ref();
    worker.postMessage({ id, ...check.work } satisfies SmilesRequest);
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    // The worker is TypeScript: a small script registers tsx in the thread (as bin/polyforge.js does
    // for the server; Node does not pass `--import` on to workers), then loads it.
    const entry = new URL("./smiles-worker.ts", import.meta.url).href;
    const bootstrap = `import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`;
    const worker = new Worker(bootstrap, { eval: true });
    worker.unref();
    this.worker = worker;
    this.workerReady = false;
    this.startTimer = setTimeout(() => this.fault(undefined, "RDKit worker did not start"), START_TIMEOUT_MS);
    this.startTimer.unref();
    worker.on("message", (response: SmilesResponse) => {
      if (worker !== this.worker) return;
      if ("ready" in response) {
        clearTimeout(this.startTimer);
        this.workerReady = true;
        this.toolkit = "proven";
        this.restartSoon = false;
        this.next();
      } else if ("fault" in response) {
        this.fault(response.id, response.fault);
      } else {
        this.answer(response.id, response.result);
      }
    });
    worker.on("error", (error) => {
      if (worker === this.worker) this.fault(this.current?.id, `RDKit worker error: ${error.message}`);
    });
    worker.on("exit", () => {
      if (worker === this.worker) this.fault(this.current?.id, "RDKit worker ended");
    });
    return worker;
  }

  private answer(id: number, result: unknown): void {
    const current = this.current;
    if (!current || current.id !== id) return;
    clearTimeout(current.timer);
    this.current = undefined;
    if (this.queue.length === 0) current.worker.unref();
    current.check.resolve(result);
    this.next();
  }

  /**
   * The worker failed (an RDKit error, a hang, the thread ended) while answering check `id`, or
   * while idle or starting (no id). It is replaced. A started worker's fault is its check's: that
   * input is refused and remembered, and counted against its sender. A worker that cannot start
   * says the toolkit is broken: every waiting check gets 503.
   */
  private fault(id: number | undefined, message: string): void {
    const current = this.current && this.current.id === id ? this.current : undefined;
    const started = this.workerReady;
    const worker = this.worker;
    this.worker = undefined;
    this.workerReady = false;
    clearTimeout(this.startTimer);
    void worker?.terminate();
    this.recordFault(message);
    if (current) {
      clearTimeout(current.timer);
      this.current = undefined;
    }
    this.toolkit = "failed";
    if (started) {
      if (current) {
        this.remember(current.check);
        current.check.reject(new AppError(400, CommonErrors.SMILES_CHECK_FAILED));
      }
      this.restartSoon = true;
      this.next();
      return;
    }
    this.restartSoon = false;
    // Nothing proves the toolkit works: the waiting checks fail now rather than break the next worker.
    for (const check of this.queue.splice(0)) check.reject(unavailable());
  }

  private remember(check: Check): void {
    const now = Date.now();
    this.failedInputs.delete(check.key);
    this.failedInputs.set(check.key, now);
    for (const [key, at] of this.failedInputs) {
      if (this.failedInputs.size <= REMEMBERED_FAILURES && now - at < REMEMBER_FAILURE_MS) break;
      this.failedInputs.delete(key);
    }
    this.userFaults.set(check.userId, [...(this.userFaults.get(check.userId) ?? []), now]);
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
