import { and, eq, gt, isNull, lte, or, sql } from "drizzle-orm";
import type { Adapter, AdapterPayload } from "oidc-provider";
import type { Db } from "../db/database";
import { oidcPayloads } from "./schema";

/** oidc-provider's storage over the `oidc_payloads` table: one adapter per model name. Expired rows
 * are never returned, and `sweepExpiredPayloads` deletes them. */
export function databaseAdapterFactory(db: Db): (model: string) => Adapter {
  return (model) => new DatabaseAdapter(db, model);
}

class DatabaseAdapter implements Adapter {
  constructor(
    private readonly db: Db,
    private readonly model: string,
  ) {}

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    const row = {
      payload: payload as Record<string, unknown>,
      grantId: payload.grantId ?? null,
      userCode: payload.userCode ?? null,
      uid: payload.uid ?? null,
      expiresAt: expiresIn ? new Date(Date.now() + expiresIn * 1000) : null,
      consumedAt: null,
    };
    await this.db
      .insert(oidcPayloads)
      .values({ model: this.model, id, ...row })
      .onConflictDoUpdate({ target: [oidcPayloads.model, oidcPayloads.id], set: row });
  }

  find(id: string): Promise<AdapterPayload | undefined> {
    return this.findWhere(eq(oidcPayloads.id, id));
  }

  findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return this.findWhere(eq(oidcPayloads.uid, uid));
  }

  findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    return this.findWhere(eq(oidcPayloads.userCode, userCode));
  }

  async consume(id: string): Promise<void> {
    await this.db
      .update(oidcPayloads)
      .set({ consumedAt: sql`now()` })
      .where(and(eq(oidcPayloads.model, this.model), eq(oidcPayloads.id, id)));
  }

  async destroy(id: string): Promise<void> {
    await this.db.delete(oidcPayloads).where(and(eq(oidcPayloads.model, this.model), eq(oidcPayloads.id, id)));
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.db
      .delete(oidcPayloads)
      .where(and(eq(oidcPayloads.model, this.model), eq(oidcPayloads.grantId, grantId)));
  }

  private async findWhere(condition: ReturnType<typeof eq>): Promise<AdapterPayload | undefined> {
    const [row] = await this.db
      .select({ payload: oidcPayloads.payload, consumedAt: oidcPayloads.consumedAt })
      .from(oidcPayloads)
      .where(
        and(
          eq(oidcPayloads.model, this.model),
          condition,
          or(isNull(oidcPayloads.expiresAt), gt(oidcPayloads.expiresAt, sql`now()`)),
        ),
      )
      .limit(1);
    if (!row) return undefined;
    const payload = row.payload as AdapterPayload;
    // oidc-provider reads `consumed` (epoch seconds) to detect a reused code or refresh token.
    return row.consumedAt ? { ...payload, consumed: Math.floor(row.consumedAt.getTime() / 1000) } : payload;
  }
}

/** Deletes every expired row (run at start and periodically). */
export async function sweepExpiredPayloads(db: Db): Promise<void> {
  await db.delete(oidcPayloads).where(lte(oidcPayloads.expiresAt, sql`now()`));
}

/** Ends every sign-in of an account: its sessions, grants, authorization codes and refresh tokens
 * (each oidc-provider model that belongs to an account names it as accountId). Run when the
 * password changes, so a session opened with the old password cannot mint tokens any more; access
 * tokens already issued (JWTs) lapse within their five minutes. */
export async function revokeAccountSignIns(db: Db, accountId: string): Promise<void> {
  await db.delete(oidcPayloads).where(sql`${oidcPayloads.payload}->>'accountId' = ${accountId}`);
}
