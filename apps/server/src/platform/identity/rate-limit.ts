import { createHash } from "node:crypto";
import { and, count, eq, gt, lt, lte, min, sql } from "drizzle-orm";
import type { Db } from "../db/database";
import { apiRateLimits, signInFailures } from "./schema";

/** At most this many failed sign-ins per client address and email within the window… */
const MAX_FAILED_SIGN_INS = 10;
const SIGN_IN_WINDOW_MS = 15 * 60 * 1000;
/** Keys of the per-address counts; a NUL cannot be part of an email, so they never meet one. */
const ANY_EMAIL = "\u0000any-email";
const SIGN_UP = "\u0000sign-up";
const CURRENT_PASSWORD = "\u0000current-password";

/** Failed sign-ins (and sign-ups) are counted in the database, so the limits hold across restarts
 * and across several API instances. A successful sign-in clears its email's count, not its
 * address's. Per address whatever the emails (issue 23: 40 emails × one password from one address
 * were never limited), `failuresPerAddress` failures are accepted within the window, and
 * `signUpsPerAddress` accounts may be opened. */
export class SignInLimiter {
  constructor(
    private readonly db: Db,
    private readonly limits: { signUpsPerAddress?: number; failuresPerAddress?: number } = {},
  ) {}

  /** Milliseconds until this client may try again for this email, or 0 when it may now. */
  async retryAfterMs(ip: string, email: string): Promise<number> {
    const [pair, address] = await Promise.all([
      this.retryAfter(attemptKey(ip, email), MAX_FAILED_SIGN_INS),
      this.retryAfter(attemptKey(ip, ANY_EMAIL), this.limits.failuresPerAddress ?? 50),
    ]);
    return Math.max(pair, address);
  }

  /** Milliseconds until this client may open another account, or 0 when it may now. */
  signUpRetryAfterMs(ip: string): Promise<number> {
    return this.retryAfter(attemptKey(ip, SIGN_UP), this.limits.signUpsPerAddress ?? 5);
  }

  /** Milliseconds until this account may send its current password again, or 0 when it may now.
   * Wrong current passwords (a password change) count like failed sign-ins, per account, so that a
   * session someone else holds cannot be used to guess the password. */
  currentPasswordRetryAfterMs(userId: string): Promise<number> {
    return this.retryAfter(attemptKey(userId, CURRENT_PASSWORD), MAX_FAILED_SIGN_INS);
  }

  async recordCurrentPasswordFailure(userId: string): Promise<void> {
    await this.db
      .insert(signInFailures)
      .values({ attemptKey: attemptKey(userId, CURRENT_PASSWORD), failedAt: new Date() });
  }

  async recordSignUp(ip: string): Promise<void> {
    await this.db.insert(signInFailures).values({ attemptKey: attemptKey(ip, SIGN_UP), failedAt: new Date() });
  }

  private async retryAfter(key: string, limit: number): Promise<number> {
    const since = new Date(Date.now() - SIGN_IN_WINDOW_MS);
    const [row] = await this.db
      .select({ failures: count(), oldest: min(signInFailures.failedAt) })
      .from(signInFailures)
      .where(and(eq(signInFailures.attemptKey, key), gt(signInFailures.failedAt, since)));
    if (!row || row.failures < limit || !row.oldest) return 0;
    // The oldest entry in the window has to age out before the count drops below the limit.
    return Math.max(1, new Date(row.oldest).getTime() + SIGN_IN_WINDOW_MS - Date.now());
  }

  async recordFailure(ip: string, email: string): Promise<void> {
    const failedAt = new Date();
    await this.db.insert(signInFailures).values([
      { attemptKey: attemptKey(ip, email), failedAt },
      { attemptKey: attemptKey(ip, ANY_EMAIL), failedAt },
    ]);
  }

  async clear(ip: string, email: string): Promise<void> {
    await this.db.delete(signInFailures).where(eq(signInFailures.attemptKey, attemptKey(ip, email)));
  }

  /** Deletes failures older than the window. */
  async sweep(): Promise<void> {
    await this.db.delete(signInFailures).where(lte(signInFailures.failedAt, new Date(Date.now() - SIGN_IN_WINDOW_MS)));
  }
}

/** Addresses and emails are not stored as such, only this hash of the pair. */
function attemptKey(ip: string, email: string): string {
  return createHash("sha256").update(`${ip}\n${email.trim().toLowerCase()}`).digest("base64url");
}

/**
 * Per-user API limits (writes, processing starts) counted in the database like the sign-in limits,
 * so that several API instances share one count. A counter per key and fixed window (aligned to the
 * window's length), raised atomically: as @fastify/rate-limit's store it answers the count so far
 * and the milliseconds until the window ends.
 */
export class RequestCounter {
  private lastSweep = 0;

  constructor(private readonly db: Db) {}

  async increment(key: string, windowMs: number): Promise<{ current: number; ttl: number }> {
    const now = Date.now();
    const windowStart = now - (now % windowMs);
    const [row] = await this.db
      .insert(apiRateLimits)
      .values({ key, windowStart: new Date(windowStart), count: 1 })
      .onConflictDoUpdate({
        target: [apiRateLimits.key, apiRateLimits.windowStart],
        set: { count: sql`${apiRateLimits.count} + 1` },
      })
      .returning({ count: apiRateLimits.count });
    if (now - this.lastSweep > windowMs) {
      this.lastSweep = now;
      void this.sweep(windowStart).catch(() => undefined);
    }
    return { current: row?.count ?? 1, ttl: windowStart + windowMs - now };
  }

  /** Drops the counters of windows that ended before `before`. */
  async sweep(before: number): Promise<void> {
    await this.db.delete(apiRateLimits).where(lt(apiRateLimits.windowStart, new Date(before)));
  }
}
