import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/database";
import { isDeadRunner } from "./liveness";

/**
 * The one claim of every job table (ARCHITECTURE §7): processing runs, structure jobs, potentials.
 * A table of jobs has the columns id (uuid), owner_id, status, created_at, attempts, lease_owner,
 * lease_expires_at, heartbeat_at, started_at and updated_at.
 */
export interface JobTable {
  /** The table's SQL name, e.g. "structure_jobs". */
  table: string;
  /** Statuses of jobs waiting for a runner (claimable unless a live lease holds them). */
  waiting: readonly string[];
  /** Statuses of jobs a runner works on (claimable once their lease lapsed: taken back). */
  active: readonly string[];
  /** Assignments made on the claimed row besides the lease (e.g. `status = 'running'`). */
  set?: SQL;
}

/** What a runner asks for (JobQueue.claim's arguments). */
export interface ClaimRequest {
  runnerId: string;
  leaseMs: number;
  /** How many of this runner's slots one user's jobs may hold (fair share); unset: all. */
  userSlots?: number;
}

export interface ClaimedJob {
  id: string;
  /** The runner whose lease lapsed (or who died) when the job was taken back from it; null for a
   * job that was waiting. */
  takenBackFrom: string | null;
}

/**
 * Takes one job for the runner, atomically across runners (one statement: the row is locked,
 * skipped by other runners, and leased), fairly between users:
 * - a user whose jobs hold `userSlots` of this runner's slots gets no more from it while they
 *   hold them, even with slots idle, so another user's job finds a slot at once;
 * - among the jobs that can run, the user holding the fewest jobs (on every runner) goes first,
 *   then the user whose last job started longest ago (or never), then the oldest job: a second
 *   user's job starts before the first user's backlog, and users take turns at a single slot.
 * Before claiming, the leases of runners of this machine that are certainly dead (a restarted
 * server) are made to lapse, so their jobs are taken back now rather than when the lease ends.
 */
export async function claimJob(db: Db, jobs: JobTable, request: ClaimRequest): Promise<ClaimedJob | undefined> {
  await expireDeadRunners(db, jobs.table);
  const table = sql.identifier(jobs.table);
  const lease = sql`now() + ${request.leaseMs} * interval '1 millisecond'`;
  const userSlots = request.userSlots ?? 2_147_483_647;
  const result = await db.execute(sql`
    WITH held AS (
      SELECT owner_id,
        count(*) AS everywhere,
        count(*) FILTER (WHERE lease_owner = ${request.runnerId}) AS here
      FROM ${table}
      WHERE lease_owner IS NOT NULL AND lease_expires_at > now()
      GROUP BY owner_id
    ), candidate AS (
      SELECT job.id AS claim_id, job.lease_owner AS previous_owner
      FROM ${table} job LEFT JOIN held ON held.owner_id = job.owner_id
      WHERE ((job.status IN ${statusList(jobs.waiting)} AND (job.lease_owner IS NULL OR job.lease_expires_at < now()))
          OR (job.status IN ${statusList(jobs.active)} AND job.lease_expires_at < now()))
        AND coalesce(held.here, 0) < ${userSlots}
      ORDER BY coalesce(held.everywhere, 0),
        (SELECT max(served.started_at) FROM ${table} served WHERE served.owner_id = job.owner_id) ASC NULLS FIRST,
        job.created_at, job.id
      LIMIT 1
      FOR UPDATE OF job SKIP LOCKED
    )
    UPDATE ${table} SET
      ${jobs.set ? sql`${jobs.set},` : sql``}
      attempts = attempts + 1,
      lease_owner = ${request.runnerId}, lease_expires_at = ${lease}, heartbeat_at = now(),
      started_at = coalesce(started_at, now()), updated_at = now()
    FROM candidate
    WHERE ${table}.id = candidate.claim_id
    RETURNING ${table}.id, candidate.previous_owner`);
  // PGlite and node-postgres both answer `{ rows }`.
  const row = (result as unknown as { rows: Array<{ id: string; previous_owner: string | null }> }).rows[0];
  return row ? { id: row.id, takenBackFrom: row.previous_owner } : undefined;
}

/** Lets the leases of this machine's dead runners lapse now (see isDeadRunner). */
async function expireDeadRunners(db: Db, tableName: string): Promise<void> {
  const table = sql.identifier(tableName);
  const result = await db.execute(
    sql`SELECT DISTINCT lease_owner FROM ${table} WHERE lease_owner IS NOT NULL AND lease_expires_at > now()`,
  );
  const holders = (result as unknown as { rows: Array<{ lease_owner: string }> }).rows.map((row) => row.lease_owner);
  const dead = holders.filter(isDeadRunner);
  if (dead.length === 0) return;
  await db.execute(sql`
    UPDATE ${table} SET lease_expires_at = now() - interval '1 millisecond'
    WHERE lease_owner IN (${sql.join(
      dead.map((holder) => sql`${holder}`),
      sql`, `,
    )}) AND lease_expires_at > now()`);
}

function statusList(statuses: readonly string[]): SQL {
  return sql`(${sql.join(
    statuses.map((status) => sql`${status}`),
    sql`, `,
  )})`;
}
