import type { Readable } from "node:stream";
import { SystemErrors } from "@polyforge/contracts/errors";
import {
  CANCELLABLE_STATUSES,
  type ResultFile,
  STARTABLE_STATUSES,
  type SystemExecution,
} from "@polyforge/contracts/system-executions";
import type { AuthenticatedUser } from "../../platform/auth/user";
import type { Db } from "../../platform/db/database";
import { isUniqueViolation } from "../../platform/db/errors";
import { AppError } from "../../platform/errors";
import type { FileStore } from "../../platform/storage/file-store";
import { requireCatalogueSystem } from "../systems/service";
import { resultKey } from "./processing";
import { executionResponse, insertExecution, latestExecution, markCancelled, notifyStatus } from "./repository";

/** POST /systems/{id}/process/start: queues one execution (the system row lock and a unique index
 * on active executions make a second quick start fail instead of queueing twice). */
export async function startProcessing(db: Db, user: AuthenticatedUser, systemId: string): Promise<SystemExecution> {
  try {
    const row = await db.transaction(async (tx) => {
      const system = await requireCatalogueSystem(tx, user, systemId, true);
      if (system.origin !== "polymer_builder") {
        throw new AppError(400, SystemErrors.PROCESS_INVALID_ORIGIN, { origin: system.origin });
      }
      const status = (await latestExecution(tx, system.id))?.status ?? "not_submitted";
      if (!STARTABLE_STATUSES.includes(status)) throw new AppError(409, SystemErrors.PROCESS_FAILED, { status });
      const execution = await insertExecution(tx, system.id, user.id);
      await notifyStatus(tx, execution); // sent when the transaction commits
      return execution;
    });
    return executionResponse(row);
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError(409, SystemErrors.PROCESS_FAILED, { status: "running" });
    throw error;
  }
}

/** DELETE /systems/{id}/process/cancel: records the cancellation; the runner holding the job sees it
 * (at once in this process, at its next heartbeat elsewhere) and kills the engine. */
export async function cancelProcessing(db: Db, user: AuthenticatedUser, systemId: string): Promise<SystemExecution> {
  const row = await db.transaction(async (tx) => {
    const system = await requireCatalogueSystem(tx, user, systemId, true);
    const latest = await latestExecution(tx, system.id);
    const notRunning = () =>
      new AppError(409, SystemErrors.PROCESS_CANCEL_NOT_RUNNING, { status: latest?.status ?? "not_submitted" });
    if (!latest || !CANCELLABLE_STATUSES.includes(latest.status)) throw notRunning();
    const cancelled = await markCancelled(tx, latest.id);
    if (!cancelled) throw notRunning();
    await notifyStatus(tx, cancelled);
    return cancelled;
  });
  return executionResponse(row);
}

/** The executions of each system, asked in the catalogue's and the detail's own statement. */
export { executionsFromJson, executionsJsonOf } from "./repository";

/** Cancels the system's latest execution if it is still active and tells its owner (on commit);
 * answers its id, for the runner holding it to stop its engine. */
export async function cancelActiveExecution(tx: Db, systemId: string): Promise<string | undefined> {
  const latest = await latestExecution(tx, systemId);
  const cancelled = latest ? await markCancelled(tx, latest.id) : undefined;
  if (cancelled) await notifyStatus(tx, cancelled);
  return cancelled?.id;
}

export interface StoredFile {
  fileName: string;
  size: number;
  stream: Readable;
}

/** The result files of the system's latest execution, or GET_FILES.NOT_READY. */
async function readyFiles(db: Db, user: AuthenticatedUser, systemId: string) {
  const system = await requireCatalogueSystem(db, user, systemId);
  const latest = await latestExecution(db, system.id);
  if (!latest || latest.resultFiles.length === 0) {
    throw new AppError(409, SystemErrors.GET_FILES_NOT_READY, { status: latest?.status ?? "not_submitted" });
  }
  return { system, execution: latest };
}

async function openStored(store: FileStore, executionId: string, file: ResultFile, fileName: string) {
  const opened = await store.open(resultKey(executionId, file.name));
  if (!opened) throw new AppError(500, SystemErrors.GET_FILES_RETRIEVAL_FAILED, { file: file.name });
  return { fileName, size: opened.size, stream: opened.stream };
}

/** GET /systems/{id}/files: the engine's results bundle, saved as '{sanitized_name}_files.zip'. */
export async function openResultsBundle(
  db: Db,
  store: FileStore,
  user: AuthenticatedUser,
  systemId: string,
): Promise<StoredFile> {
  const { system, execution } = await readyFiles(db, user, systemId);
  const bundle = execution.resultFiles.find((file) => file.name.endsWith(".zip"));
  if (!bundle) throw new AppError(409, SystemErrors.GET_FILES_NOT_READY, { status: execution.status });
  return openStored(store, execution.id, bundle, `${system.sanitizedName}_files.zip`);
}

/** GET /systems/{id}/files/{name}: one result file (structures and energies for the viewer). */
export async function openResultFile(
  db: Db,
  store: FileStore,
  user: AuthenticatedUser,
  systemId: string,
  name: string,
): Promise<StoredFile> {
  const { execution } = await readyFiles(db, user, systemId);
  const file = execution.resultFiles.find((f) => f.name === name);
  if (!file) throw new AppError(404, SystemErrors.GET_FILES_NOT_READY, { file: name });
  return openStored(store, execution.id, file, file.name);
}
