import { sql } from "drizzle-orm";
import { index, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { users } from "../../platform/identity/schema";
import { systems } from "../systems/schema";

/** Projects (SPEC §3 Project): a user's folders for molecular systems. */
export const projects = pgTable(
  "projects",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    ownerId: uuid("owner_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // One name per owner, in any case: also what stops a double-clicked Create making two.
    uniqueIndex("projects_owner_name_key").on(t.ownerId, sql`lower(${t.name})`),
    index("projects_owner_idx").on(t.ownerId, t.updatedAt),
  ],
);

/** A system filed under a project; a system is in at most one project. Deleting the project
 * deletes these rows only, never the systems. */
export const projectSystems = pgTable(
  "project_systems",
  {
    systemId: uuid("system_id")
      .primaryKey()
      .references(() => systems.id, { onDelete: "cascade" }),
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("project_systems_project_idx").on(t.projectId)],
);

export type ProjectRow = typeof projects.$inferSelect;
