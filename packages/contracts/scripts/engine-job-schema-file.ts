import { fileURLToPath } from "node:url";
import { engineJobJsonSchema } from "../src/engine-job";

/** Where the engine reads the job schema, and its exact text (shared by the export script and the test). */
export const ENGINE_JOB_SCHEMA_PATH = fileURLToPath(
  new URL("../../../engine/polyforge_engine/schemas/build_job.schema.json", import.meta.url),
);

export function engineJobSchemaText(): string {
  return `${JSON.stringify(engineJobJsonSchema(), null, 2)}\n`;
}
