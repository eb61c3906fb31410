import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../../platform/db/database";
import { type UserRow, users } from "../../platform/identity/schema";

export async function findUserById(db: Db, id: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.id, id));
  return row;
}

export type NewUser = Pick<UserRow, "id" | "email" | "firstName" | "lastName" | "organization" | "roles"> &
  Pick<UserRow, "identityProvider" | "allowImpersonation">;

/** Inserts the user unless a row with this id exists. Returns false when the email belongs to
 * another user id. */
export async function insertUserIfAbsent(db: Db, user: NewUser): Promise<boolean> {
  const inserted = await db.insert(users).values(user).onConflictDoNothing().returning({ id: users.id });
  if (inserted.length > 0) return true;
  return (await findUserById(db, user.id)) !== undefined;
}

/** Marks the user provisioned and returns the row, or undefined if that had already happened.
 * The row lock of the UPDATE makes concurrent first requests provision only once. */
export async function markProvisioned(db: Db, id: string): Promise<UserRow | undefined> {
  const [row] = await db
    .update(users)
    .set({ provisionedAt: sql`now()` })
    .where(and(eq(users.id, id), isNull(users.provisionedAt)))
    .returning();
  return row;
}

export async function updateUserAccount(
  db: Db,
  id: string,
  changes: Partial<Pick<UserRow, "firstName" | "lastName" | "allowImpersonation">>,
): Promise<UserRow | undefined> {
  const [row] = await db
    .update(users)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(eq(users.id, id))
    .returning();
  return row;
}

export async function updateUserPasswordHash(db: Db, id: string, passwordHash: string): Promise<boolean> {
  const rows = await db
    .update(users)
    .set({ passwordHash, updatedAt: sql`now()` })
    .where(eq(users.id, id))
    .returning({ id: users.id });
  return rows.length > 0;
}
