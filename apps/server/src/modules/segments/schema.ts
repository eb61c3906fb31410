import { SEGMENT_TYPES } from "@polyforge/contracts/enums";
import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { users } from "../../platform/identity/schema";
import { buildingBlocks } from "../building-blocks/schema";
import { systems } from "../systems/schema";

/** Segments (SPEC §3): an ordered list of building blocks, owned by one polymer-builder system. */
export const segments = pgTable(
  "segments",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    ownerId: uuid("owner_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    systemId: uuid("system_id")
      .notNull()
      .references(() => systems.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    type: text("type", { enum: SEGMENT_TYPES }).notNull(),
    /** total_building_blocks, and multiplier / capping_type / sequence by type. */
    data: jsonb("data").$type<Record<string, unknown>>().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("segments_owner_idx").on(t.ownerId, t.updatedAt),
    uniqueIndex("segments_system_name_key").on(t.systemId, t.name),
  ],
);

/** One block of a segment: occurrence (block, peptide) or ratio (random). A block stays referenced
 * (no cascade): blocks are only ever archived, and a used block answers UPDATE IN_USE. */
export const segmentBlocks = pgTable(
  "segment_blocks",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    segmentId: uuid("segment_id")
      .notNull()
      .references(() => segments.id, { onDelete: "cascade" }),
    buildingBlockId: uuid("building_block_id")
      .notNull()
      .references(() => buildingBlocks.id),
    blockOrder: integer("block_order").notNull(),
    occurrence: integer("occurrence"),
    ratio: integer("ratio"),
  },
  (t) => [
    uniqueIndex("segment_blocks_order_key").on(t.segmentId, t.blockOrder),
    index("segment_blocks_block_idx").on(t.buildingBlockId),
  ],
);

export type SegmentRow = typeof segments.$inferSelect;
export type SegmentBlockRow = typeof segmentBlocks.$inferSelect;
