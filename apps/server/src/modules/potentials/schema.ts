import { SYSTEM_TYPES } from "@polyforge/contracts/enums";
import type { StructureProblem } from "@polyforge/contracts/molecular-systems";
import { POTENTIAL_ORIGINS } from "@polyforge/contracts/potentials";
import type { ResultFile } from "@polyforge/contracts/system-executions";
import { sql } from "drizzle-orm";
import { bigint, index, jsonb, pgTable, real, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { jobColumns } from "../../platform/jobs/table";
import { systems } from "../systems/schema";

/**
 * Potentials of a system from a file or a SMILES (SPEC §3 Potential; migration 0011). A row is its
 * own job, as a system_executions row is: a generated potential goes waiting_for_resources →
 * processing → completed / failed / error / cancelled (generate-potential); an uploaded one
 * pending_upload → uploading → pending_validation → validating → valid / invalid / error
 * (validate-topology). Runners claim the waiting rows with the shared claim (platform/jobs/claim.ts).
 */
export const potentials = pgTable(
  "potentials",
  {
    ...jobColumns(),
    systemId: uuid("system_id")
      .notNull()
      .references(() => systems.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    sanitizedName: text("sanitized_name").notNull(),
    description: text("description").notNull().default(""),
    origin: text("origin", { enum: POTENTIAL_ORIGINS }).notNull(),
    /** The system type of the structure it parametrises, when it was created. */
    systemType: text("system_type", { enum: SYSTEM_TYPES }).notNull().default("not_defined"),
    /** An execution status (generate) or a file upload status (upload). */
    status: text("status").notNull(),
    /** generate: { force_field, charge, minimization_steps } (SPEC antechamber_potential). */
    parameters: jsonb("parameters").$type<Record<string, unknown>>(),
    /** What the job reads, frozen when it was queued: the structure's store key and file name. */
    input: jsonb("input").$type<Record<string, unknown>>().notNull().default({}),
    file: text("file"),
    fileSize: bigint("file_size", { mode: "number" }),
    uploadId: text("upload_id"),
    progress: real("progress").notNull().default(0),
    stage: text("stage"),
    errorCode: text("error_code"),
    errorMessage: text("error_message"),
    /** Why an uploaded .top is invalid (or its check broke). */
    problem: jsonb("problem").$type<StructureProblem>(),
    /** generate: the engine's summary; upload: validate-topology's. */
    result: jsonb("result").$type<Record<string, unknown>>(),
    resultFiles: jsonb("result_files").$type<ResultFile[]>().notNull().default([]),
    schedulerReason: text("scheduler_reason"),
  },
  (t) => [
    index("potentials_system_idx").on(t.systemId, t.createdAt),
    index("potentials_claim_idx").on(t.status, t.createdAt),
    index("potentials_held_idx").on(t.ownerId).where(sql`${t.leaseOwner} IS NOT NULL`),
    // SPEC: one draft potential at a time ('Finish your draft potential before creating a new one').
    uniqueIndex("potentials_one_draft_per_system")
      .on(t.systemId)
      .where(sql`${t.origin} = 'upload' AND ${t.status} IN ('pending_upload', 'uploading')`),
  ],
);

export type PotentialRow = typeof potentials.$inferSelect;
