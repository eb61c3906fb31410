import type { Config } from "../platform/config";
import type { Database } from "../platform/db/database";
import type { NotificationHub } from "../platform/events/notifications";
import type { RunnerHandle } from "../platform/jobs/runner";
import type { FileStore } from "../platform/storage/file-store";

/** Everything a resource module's routes need from the platform, built once by app.ts. */
export interface ModuleContext {
  config: Config;
  database: Database;
  notifications: NotificationHub;
  /** The file store and the engine jobs' runners (src/jobs.ts builds them): a route wakes a runner
   * for a job it queued and stops one it cancelled. */
  processing: {
    store: FileStore;
    /** system_executions: build-system. */
    runner: RunnerHandle;
    /** validate-structure and convert-smiles. */
    structures: RunnerHandle;
    /** generate-potential and validate-topology. */
    potentials: RunnerHandle;
  };
}
