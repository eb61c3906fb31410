import { createHash } from "node:crypto";
import { and, eq, gt, isNull, lte, or, sql } from "drizzle-orm";
import type { Adapter, AdapterPayload } from "oidc-provider";
import type { Db } from "../db/database";
import { oidcPayloads } from "./schema";

/** oidc-provider's storage over the `oidc_payloads` table: one adapter per model name. Expired rows
 * are never returned, and `sweepExpiredPayloads` deletes them. */
export function databaseAdapterFactory(db: Db): (model: string) => Adapter {
  return (model) => new DatabaseAdapter(db, model);
}

/** Models whose id is the bearer secret itself: stored and looked up by its hash only (issue 23),
 * so the table's rows cannot be replayed as tokens. */
const HASHED_MODELS = new Set(["RefreshToken", "AuthorizationCode"]);

/** SHA-256 of a token value, base64url (migration 0008 hashes the rows stored before the same way). */
export function tokenHash(value: string): string {
  return createHash("sha256").update(value).digest("base64url");
}

class DatabaseAdapter implements Adapter {
  private readonly hashed: boolean;

  constructor(
    private readonly db: Db,
    private readonly model: string,
  ) {
    this.hashed = HASHED_MODELS.has(model);
  }

  /** The stored key of an id: its hash for secret-bearing models. */
  private key(id: string): string {
    return this.hashed ? tokenHash(id) : id;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    // The payload repeats the id as jti: a hashed model keeps it out of the row.
    const { jti: _jti, ...withoutId } = payload;
    const row = {
      payload: (this.hashed ? withoutId : payload) as Record<string, unknown>,
      grantId: payload.grantId ?? null,
      userCode: payload.userCode ?? null,
      uid: payload.uid ?? null,
      expiresAt: expiresIn ? new Date(Date.now() + expiresIn * 1000) : null,
      consumedAt: null,
    };
    await this.db
      .insert(oidcPayloads)
      .values({ model: this.model, id: this.key(id), ...row })
      .onConflictDoUpdate({ target: [oidcPayloads.model, oidcPayloads.id], set: row });
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const payload = await this.findWhere(eq(oidcPayloads.id, this.key(id)));
    return payload && this.hashed ? { ...payload, jti: id } : payload;
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
      .where(and(eq(oidcPayloads.model, this.model), eq(oidcPayloads.id, this.key(id))));
  }

  async destroy(id: string): Promise<void> {
    await this.db
      .delete(oidcPayloads)
      .where(and(eq(oidcPayloads.model, this.model), eq(oidcPayloads.id, this.key(id))));
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
