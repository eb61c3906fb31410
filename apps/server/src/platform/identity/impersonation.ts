import type { Db } from "../db/database";
import { databaseAdapterFactory } from "./adapter";
import type { UserRow } from "./schema";

const SUPPORT_ROLE = "support";

/** Who acts as the user in a remote-support sign-in; the sign-in hands it to the authorization. */
export interface ImpersonationResult {
  impersonatorId: string;
  impersonatorEmail: string;
}

export type ImpersonationCheck =
  | { ok: true; customer: UserRow }
  | { ok: false; reason: "not_support_staff" | "not_allowed" };

/** SPEC §6: only staff with the support role, and only for a user who enabled remote support. */
export function mayImpersonate(staff: UserRow, customer: UserRow | undefined): ImpersonationCheck {
  if (!staff.roles.includes(SUPPORT_ROLE)) return { ok: false, reason: "not_support_staff" };
  if (!customer?.allowImpersonation || customer.id === staff.id) return { ok: false, reason: "not_allowed" };
  return { ok: true, customer };
}

/** Impersonations are kept with the provider's other state (oidc_payloads, model "Impersonation"),
 * keyed by the grant of the remote-support sign-in: every token issued under that grant, refreshed
 * ones included, names the impersonator, and a new sign-in makes a new grant without one. */
const MODEL = "Impersonation";

interface StoredImpersonation extends ImpersonationResult {
  accountId: string;
}

export async function recordImpersonation(
  db: Db,
  grantId: string,
  accountId: string,
  by: ImpersonationResult,
  lifetimeSeconds: number,
): Promise<void> {
  const stored: StoredImpersonation = { accountId, ...by };
  await databaseAdapterFactory(db)(MODEL).upsert(grantId, { ...stored, grantId }, lifetimeSeconds);
}

/** The `impersonator` claim for tokens of this grant, shaped as Keycloak's ({id, username}), or
 * nothing when the grant is an ordinary sign-in. */
export async function impersonatorClaim(
  db: Db,
  grantId: string | undefined,
  accountId: string,
): Promise<{ impersonator: { id: string; username: string } } | Record<string, never>> {
  if (!grantId) return {};
  const stored = (await databaseAdapterFactory(db)(MODEL).find(grantId)) as StoredImpersonation | undefined;
  if (stored?.accountId !== accountId) return {};
  return { impersonator: { id: stored.impersonatorId, username: stored.impersonatorEmail } };
}
