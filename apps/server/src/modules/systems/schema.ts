import { SYSTEM_ORIGINS, SYSTEM_TYPES } from "@polyforge/contracts/enums";
import { sql } from "drizzle-orm";
import { boolean, index, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { users } from "../../platform/identity/schema";

/**
 * Molecular systems (SPEC §3). A polymer-builder system starts as the user's one draft (at most
 * one per owner) that owns segments, polymers, a system setup and a simulation protocol; finishing
 * it freezes `engine_job`, the snapshot the engine builds from (packages/contracts/engine-job.ts).
 */
export const systems = pgTable(
  "systems",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    ownerId: uuid("owner_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull().default(""),
    sanitizedName: text("sanitized_name").notNull().default(""),
    description: text("description").notNull().default(""),
    origin: text("origin", { enum: SYSTEM_ORIGINS }).notNull(),
    type: text("type", { enum: SYSTEM_TYPES }).notNull().default("not_defined"),
    isDraft: boolean("is_draft").notNull().default(false),
    systemData: jsonb("system_data").$type<Record<string, unknown>>().notNull().default({}),
    engineJob: jsonb("engine_job").$type<Record<string, unknown>>(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    archivedAt: timestamp("archived_at", { withTimezone: true }),
  },
  (t) => [
    index("systems_owner_idx").on(t.ownerId, t.updatedAt),
    // The catalogue's pages read in order (migration 0014).
    index("systems_catalogue_idx")
      .on(t.ownerId, t.updatedAt.desc(), t.id.desc())
      .where(sql`NOT ${t.isDraft} AND ${t.archivedAt} IS NULL`),
    index("systems_catalogue_type_idx")
      .on(t.ownerId, t.type, t.updatedAt.desc(), t.id.desc())
      .where(sql`NOT ${t.isDraft} AND ${t.archivedAt} IS NULL`),
    uniqueIndex("systems_one_draft_per_owner").on(t.ownerId).where(sql`${t.isDraft}`),
  ],
);

export type SystemRow = typeof systems.$inferSelect;
