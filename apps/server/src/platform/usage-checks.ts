import type { Db } from "./db/database";

/** Answers whether something a higher module built uses the row `id` of a lower module. */
export type UsageCheck = (db: Db, id: string) => Promise<boolean>;

/**
 * The "is it used?" question a lower module asks before changing or deleting a row, answered by
 * the modules above that build on it (registered in modules/wiring.ts), so that the lower module
 * never imports them.
 */
export class UsageChecks {
  private readonly checks = new Set<UsageCheck>();

  /** Registering the same check again is a no-op. */
  register(check: UsageCheck): void {
    this.checks.add(check);
  }

  async isUsed(db: Db, id: string): Promise<boolean> {
    for (const check of this.checks) {
      if (await check(db, id)) return true;
    }
    return false;
  }
}
