import { BLOCK_TYPES } from "@polyforge/contracts/enums";
import { sql } from "drizzle-orm";
import {
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { users } from "../../platform/identity/schema";

/**
 * Building blocks (SPEC §3). A user's linear and dendrimer blocks carry `owner_id`; the natural
 * amino acids are global (no owner) and read-only. Archive is soft: `archived_at` is set.
 * `data` holds the SMILES fields of the type (aminoacids: codes and repeating unit).
 */
export const buildingBlocks = pgTable(
  "building_blocks",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    ownerId: uuid("owner_id").references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    type: text("type", { enum: BLOCK_TYPES }).notNull(),
    description: text("description"),
    version: integer("version").notNull().default(0),
    draft: boolean("draft").notNull().default(false),
    data: jsonb("data").$type<Record<string, string>>().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    archivedAt: timestamp("archived_at", { withTimezone: true }),
    /** The client's Idempotency-Key of the create that made the block: a repeated create (a
     * double click, a retried request) answers this block instead of making another. */
    idempotencyKey: text("idempotency_key"),
  },
  (t) => [
    index("building_blocks_owner_idx").on(t.ownerId, t.updatedAt),
    // The list's pages read in order, the user's and the global blocks apart (migration 0014).
    index("building_blocks_list_idx")
      .on(t.ownerId, t.updatedAt.desc(), t.name, t.id)
      .where(sql`${t.archivedAt} IS NULL`),
    uniqueIndex("building_blocks_owner_idempotency_key")
      .on(t.ownerId, t.idempotencyKey)
      .where(sql`${t.idempotencyKey} IS NOT NULL`),
    check("building_blocks_type_check", sql`${t.type} IN ('linear', 'dendrimer', 'aminoacid')`),
    // Exactly the amino acids are global.
    check("building_blocks_owner_check", sql`(${t.type} = 'aminoacid') = (${t.ownerId} IS NULL)`),
  ],
);

export type BuildingBlockRow = typeof buildingBlocks.$inferSelect;
export type NewBuildingBlockRow = typeof buildingBlocks.$inferInsert;
