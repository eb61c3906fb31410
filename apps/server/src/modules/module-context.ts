import type { Config } from "../platform/config";
import type { Database } from "../platform/db/database";
import type { NotificationHub } from "../platform/events/notifications";
import type { SystemProcessing } from "./system-executions/runtime";

/** Everything a resource module's routes need from the platform, built once by app.ts. */
export interface ModuleContext {
  config: Config;
  database: Database;
  notifications: NotificationHub;
  processing: SystemProcessing;
}
