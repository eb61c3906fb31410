/**
 * Writes the engine job's JSON Schema where the engine reads it:
 * `node --import tsx packages/contracts/scripts/export-engine-job-schema.ts`
 * (test/engine-job.test.ts fails when the committed file is out of date).
 */
import { writeFileSync } from "node:fs";
import { ENGINE_JOB_SCHEMA_PATH, engineJobSchemaText } from "./engine-job-schema-file";

writeFileSync(ENGINE_JOB_SCHEMA_PATH, engineJobSchemaText());
console.log(`wrote ${ENGINE_JOB_SCHEMA_PATH}`);
