import { sql } from "drizzle-orm";
import {
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";

/** Everything the embedded OpenID provider remembers between requests (sessions, grants,
 * interactions, authorization codes, refresh tokens), one row per oidc-provider model instance.
 * Keeping it in the database means a restart does not sign anybody out. */
export const oidcPayloads = pgTable(
  "oidc_payloads",
  {
    /** oidc-provider's model name: Session, Grant, Interaction, AuthorizationCode, RefreshToken… */
    model: text("model").notNull(),
    id: text("id").notNull(),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    grantId: text("grant_id"),
    userCode: text("user_code"),
    /** Sessions are also looked up by their uid. */
    uid: text("uid"),
    /** Null = never expires (oidc-provider passes no lifetime). */
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    consumedAt: timestamp("consumed_at", { withTimezone: true }),
  },
  (t) => [
    primaryKey({ columns: [t.model, t.id] }),
    index("oidc_payloads_grant_id_idx").on(t.grantId),
    index("oidc_payloads_uid_idx").on(t.uid),
    index("oidc_payloads_expires_at_idx").on(t.expiresAt),
  ],
);

/** Secrets generated once on first start and kept, so tokens and cookies stay valid across
 * restarts: the token signing key (a private JWK) and the cookie signing keys. */
export const identitySecrets = pgTable("identity_secrets", {
  name: text("name").primaryKey(),
  value: jsonb("value").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

/** One row per failed sign-in, keyed by a hash of the client address and the email typed, for the
 * sign-in rate limit. Rows older than the limit's window are swept. */
export const signInFailures = pgTable(
  "sign_in_failures",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    attemptKey: text("attempt_key").notNull(),
    failedAt: timestamp("failed_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("sign_in_failures_key_idx").on(t.attemptKey, t.failedAt)],
);

/** Requests counted against a per-user API limit (writes, processing starts): one row per key and
 * fixed window, shared by every API instance. Rows of ended windows are swept. */
export const apiRateLimits = pgTable(
  "api_rate_limits",
  {
    key: text("key").notNull(),
    windowStart: timestamp("window_start", { withTimezone: true }).notNull(),
    count: integer("count").notNull().default(0),
  },
  (t) => [
    primaryKey({ name: "api_rate_limits_pkey", columns: [t.key, t.windowStart] }),
    index("api_rate_limits_window_idx").on(t.windowStart),
  ],
);

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
