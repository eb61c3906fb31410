import { and, inArray, type SQL, sql } from "drizzle-orm";
import { type AnyPgColumn, integer, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { users } from "../identity/schema";

/**
 * The columns every job table has (the ones claim.ts's JobTable names), spread into its pgTable:
 * the id; the owner; which runner holds the job and until when (a lapsed lease is taken back by the
 * next claim; renewed by heartbeat); how many times a runner has claimed it (a taken-back job is
 * claimed again); and when it was created, started, finished and last changed.
 */
export function jobColumns() {
  return {
    id: uuid("id").primaryKey().defaultRandom(),
    ownerId: uuid("owner_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    leaseOwner: text("lease_owner"),
    leaseExpiresAt: timestamp("lease_expires_at", { withTimezone: true }),
    heartbeatAt: timestamp("heartbeat_at", { withTimezone: true }),
    attempts: integer("attempts").notNull().default(0),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    startedAt: timestamp("started_at", { withTimezone: true }),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  };
}

/** A heartbeat's assignments: the lease runs `leaseMs` from now. */
export function renewedLease(leaseMs: number) {
  return { leaseExpiresAt: sql`now() + ${leaseMs} * interval '1 millisecond'`, heartbeatAt: sql`now()` };
}

/** The assignments that end a job besides its status: the lease let go, finished and changed now. */
export function endedJob() {
  return { leaseOwner: null, leaseExpiresAt: null, finishedAt: sql`now()`, updatedAt: sql`now()` };
}

/** The assignments that hand a job on a scheduler back without stopping it: its lease lapses
 * now, so the next runner's claim follows it at once. */
export function lapsedLease() {
  return { leaseOwner: null, leaseExpiresAt: sql`now()` };
}

/** Jobs in one of `statuses` whose lease lapsed after `maxAttempts` claims: their runners died that
 * many times, and they end instead of being taken back forever. */
export function interruptedTooOften(
  table: { status: AnyPgColumn; leaseExpiresAt: AnyPgColumn; attempts: AnyPgColumn },
  statuses: readonly string[],
  maxAttempts: number,
): SQL {
  return and(
    inArray(table.status, [...statuses]),
    sql`${table.leaseExpiresAt} < now()`,
    sql`${table.attempts} >= ${maxAttempts}`,
  ) as SQL;
}
