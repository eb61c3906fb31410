import { sql } from "drizzle-orm";
import { index, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { jobColumns } from "../../platform/jobs/table";
import { systems } from "../systems/schema";

/** The engine commands a structure job runs (ARCHITECTURE §7b). */
export const STRUCTURE_JOB_KINDS = ["validate-structure", "convert-smiles"] as const;
export type StructureJobKind = (typeof STRUCTURE_JOB_KINDS)[number];

/** A job's own life; the user sees the system's status (system_data.status), which the job moves. */
export const STRUCTURE_JOB_STATUSES = ["queued", "running", "done"] as const;

/**
 * Validation of an uploaded file and conversion of a SMILES (ARCHITECTURE §7b): one row per job,
 * claimed by a runner like a processing job (`FOR UPDATE SKIP LOCKED`, a lease renewed by
 * heartbeat, a lapsed lease taken back by the next claim).
 */
export const structureJobs = pgTable(
  "structure_jobs",
  {
    ...jobColumns(),
    systemId: uuid("system_id")
      .notNull()
      .references(() => systems.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: STRUCTURE_JOB_KINDS }).notNull(),
    status: text("status", { enum: STRUCTURE_JOB_STATUSES }).notNull().default("queued"),
    /** What the job works on: the stored file (key, name) or the SMILES, frozen when it was queued. */
    input: jsonb("input").$type<Record<string, unknown>>().notNull().default({}),
  },
  (t) => [
    index("structure_jobs_claim_idx").on(t.status, t.createdAt),
    // The jobs each user holds, counted by every claim (fair share of the slots).
    index("structure_jobs_held_idx").on(t.ownerId).where(sql`${t.leaseOwner} IS NOT NULL`),
    // When each user's last job started, read by every claim (users take turns).
    index("structure_jobs_served_idx").on(t.ownerId, t.startedAt),
    // One validation or conversion at a time per system: a double Save cannot queue two.
    uniqueIndex("structure_jobs_one_active_per_system").on(t.systemId).where(sql`${t.status} IN ('queued', 'running')`),
  ],
);

export type StructureJobRow = typeof structureJobs.$inferSelect;
