import { FORCE_FIELDS, TACTICITIES } from "@polyforge/contracts/enums";
import { sql } from "drizzle-orm";
import {
  check,
  doublePrecision,
  index,
  integer,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { users } from "../../platform/identity/schema";
import { segments } from "../segments/schema";
import { systems } from "../systems/schema";

/** Linear polymers (SPEC §3): segments in order, each repeated `occurrence` times. */
export const polymers = pgTable(
  "polymers",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    ownerId: uuid("owner_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    systemId: uuid("system_id")
      .notNull()
      .references(() => systems.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    forceField: text("force_field", { enum: FORCE_FIELDS }).notNull(),
    /** Issue 22, migration 0013: how the engine sets prochiral backbone centres; the meso fraction
     * is kept whatever the kind (the engine reads it for atactic only). */
    tacticity: text("tacticity", { enum: TACTICITIES }).notNull().default("atactic"),
    mesoFraction: doublePrecision("meso_fraction").notNull().default(0.5),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("polymers_owner_idx").on(t.ownerId, t.updatedAt),
    // A draft's polymers in order; the system's cascade on delete (migration 0014).
    index("polymers_system_idx").on(t.systemId, t.createdAt, t.id),
    check("polymers_tacticity_check", sql`${t.tacticity} IN ('atactic', 'isotactic', 'syndiotactic', 'as_drawn')`),
    check("polymers_meso_fraction_check", sql`${t.mesoFraction} >= 0 AND ${t.mesoFraction} <= 1`),
  ],
);

/** A segment used by a polymer; the segment cannot be deleted while used (SEGMENT DELETE IN_USE). */
export const polymerSegments = pgTable(
  "polymer_segments",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    polymerId: uuid("polymer_id")
      .notNull()
      .references(() => polymers.id, { onDelete: "cascade" }),
    segmentId: uuid("segment_id")
      .notNull()
      .references(() => segments.id),
    segmentOrder: integer("segment_order").notNull(),
    occurrence: integer("occurrence").notNull(),
  },
  (t) => [
    uniqueIndex("polymer_segments_order_key").on(t.polymerId, t.segmentOrder),
    index("polymer_segments_segment_idx").on(t.segmentId),
  ],
);

export type PolymerRow = typeof polymers.$inferSelect;
export type PolymerSegmentRow = typeof polymerSegments.$inferSelect;
