import { createHash } from "node:crypto";
import { and, count, eq, gt, lte, min } from "drizzle-orm";
import type { Db } from "../db/database";
import { signInFailures } from "./schema";

/** At most this many failed sign-ins per client address and email within the window. */
const MAX_FAILED_SIGN_INS = 10;
const SIGN_IN_WINDOW_MS = 15 * 60 * 1000;

/** Failed sign-ins are counted in the database, so the limit holds across restarts and across
 * several API instances. Only failures count; a successful sign-in clears the count. */
export class SignInLimiter {
  constructor(private readonly db: Db) {}

  /** Milliseconds until this client may try again for this email, or 0 when it may now. */
  async retryAfterMs(ip: string, email: string): Promise<number> {
    const since = new Date(Date.now() - SIGN_IN_WINDOW_MS);
    const [row] = await this.db
      .select({ failures: count(), oldest: min(signInFailures.failedAt) })
      .from(signInFailures)
      .where(and(eq(signInFailures.attemptKey, attemptKey(ip, email)), gt(signInFailures.failedAt, since)));
    if (!row || row.failures < MAX_FAILED_SIGN_INS || !row.oldest) return 0;
    // The oldest failure in the window has to age out before the count drops below the limit.
    return Math.max(1, new Date(row.oldest).getTime() + SIGN_IN_WINDOW_MS - Date.now());
  }

  async recordFailure(ip: string, email: string): Promise<void> {
    await this.db.insert(signInFailures).values({ attemptKey: attemptKey(ip, email), failedAt: new Date() });
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
