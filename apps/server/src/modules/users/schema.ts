import { sql } from "drizzle-orm";
import { boolean, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";

/** A person who can sign in. `id` is the token's `sub`. Users from a federated provider have no
 * password hash and keep `identity_provider` (SPEC §6: they cannot edit names or password). */
export const users = pgTable(
  "users",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    email: text("email").notNull(),
    firstName: text("first_name").notNull().default(""),
    lastName: text("last_name").notNull().default(""),
    organization: text("organization").notNull().default("other"),
    passwordHash: text("password_hash"),
    identityProvider: text("identity_provider"),
    allowImpersonation: boolean("allow_impersonation").notNull().default(false),
    roles: text("roles").array().notNull().default(sql`ARRAY['user']::text[]`),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    /** Set when the API first saw the user and ran the provisioning hooks (sample data). The row
     * itself may exist earlier: the embedded provider creates it at sign-up. */
    provisionedAt: timestamp("provisioned_at", { withTimezone: true }),
  },
  (t) => [uniqueIndex("users_email_key").on(t.email)],
);

export type UserRow = typeof users.$inferSelect;
