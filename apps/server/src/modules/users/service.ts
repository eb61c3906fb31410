import { CommonErrors, UserErrors } from "@polyforge/contracts/errors";
import { normalizeOrganization } from "@polyforge/contracts/organizations";
import type { UserAccount } from "@polyforge/contracts/users";
import type { AccessClaims } from "../../platform/auth/tokens";
import type { AuthenticatedUser } from "../../platform/auth/user";
import type { Db } from "../../platform/db/database";
import { AppError } from "../../platform/errors";
import { revokeAccountSignIns } from "../../platform/identity/adapter";
import { hashPassword, verifyPassword } from "../../platform/identity/passwords";
import { SignInLimiter } from "../../platform/identity/rate-limit";
import type { UserRow } from "../../platform/identity/schema";
import { userProvisionedHooks } from "./provisioning";
import {
  findUserById,
  insertUserIfAbsent,
  markProvisioned,
  updateUserAccount,
  updateUserPasswordHash,
} from "./repository";

/** The caller of a verified token: creates the user row on first sight (an external provider's
 * users), runs the provisioning hooks once, and enforces SPEC §6's impersonation rule. */
export async function resolveUser(db: Db, claims: AccessClaims): Promise<AuthenticatedUser> {
  let row = await findUserById(db, claims.sub);
  if (!row?.provisionedAt) row = await provisionUser(db, claims);

  const impersonator = impersonatorOf(claims);
  if (impersonator && !row.allowImpersonation) {
    throw new AppError(401, CommonErrors.UNAUTHORIZED_IMPERSONATION_NOT_ALLOWED);
  }
  return {
    id: row.id,
    email: row.email,
    firstName: row.firstName,
    lastName: row.lastName,
    organization: normalizeOrganization(claims.organization ?? row.organization),
    roles: claims.realm_access?.roles ?? row.roles,
    allowImpersonation: row.allowImpersonation,
    impersonator,
    identityProvider: claims.identity_provider ?? row.identityProvider,
  };
}

async function provisionUser(db: Db, claims: AccessClaims): Promise<UserRow> {
  let created: boolean;
  try {
    created = await insertUserIfAbsent(db, {
      id: claims.sub,
      email: claims.email.toLowerCase(),
      firstName: claims.given_name ?? "",
      lastName: claims.family_name ?? "",
      organization: normalizeOrganization(claims.organization),
      roles: claims.realm_access?.roles ?? ["user"],
      identityProvider: claims.identity_provider ?? null,
      allowImpersonation: claims.allow_impersonation === true,
    });
  } catch (err) {
    throw new AppError(500, CommonErrors.CREATE_USER_CREATION_ERROR, {}, { cause: err });
  }
  // The email is already taken by a user with another id (e.g. the account was recreated upstream).
  if (!created) throw new AppError(409, CommonErrors.CREATE_USER_CREATION_ERROR);

  try {
    await db.transaction(async (tx) => {
      const newlyProvisioned = await markProvisioned(tx, claims.sub);
      if (!newlyProvisioned) return; // a concurrent request got there first
      for (const hook of userProvisionedHooks()) await hook(tx, newlyProvisioned);
    });
  } catch (err) {
    throw new AppError(500, CommonErrors.CREATE_USER_SAMPLE_DATA_ERROR, {}, { cause: err });
  }
  const row = await findUserById(db, claims.sub);
  if (!row) throw new AppError(500, CommonErrors.CREATE_USER_CREATION_ERROR);
  return row;
}

/** Keycloak sends `impersonator` as `{id, username}`; the embedded provider as the staff email. */
function impersonatorOf(claims: AccessClaims): string | null {
  const value = claims.impersonator;
  if (typeof value === "string" && value) return value;
  if (value && typeof value === "object") {
    const { username, id } = value as { username?: unknown; id?: unknown };
    if (typeof username === "string" && username) return username;
    if (typeof id === "string" && id) return id;
  }
  return null;
}

export async function getAccount(db: Db, user: AuthenticatedUser): Promise<UserAccount> {
  const row = await findUserById(db, user.id);
  if (!row) throw new AppError(404, UserErrors.GET_NOT_FOUND);
  return toAccount(row);
}

/** Staff acting as the user (a token with `impersonator`) may help with the user's data, but never
 * with what secures the account: its password and the consent to remote support. */
function refuseDuringImpersonation(user: AuthenticatedUser): void {
  if (user.impersonator !== null) {
    throw new AppError(403, CommonErrors.FORBIDDEN_INSUFFICIENT_PERMISSIONS, { reason: "impersonation" });
  }
}

/** SPEC §6: users of a federated provider keep the names it gives them; only the remote-support
 * toggle is theirs to change. */
export async function updateAccount(
  db: Db,
  user: AuthenticatedUser,
  changes: { first_name: string; last_name: string; allow_impersonation: boolean },
): Promise<UserAccount> {
  if (changes.allow_impersonation !== user.allowImpersonation) refuseDuringImpersonation(user);
  const sso = user.identityProvider !== null;
  const row = await updateUserAccount(db, user.id, {
    allowImpersonation: changes.allow_impersonation,
    ...(sso ? {} : { firstName: changes.first_name, lastName: changes.last_name }),
  });
  if (!row) throw new AppError(400, UserErrors.UPDATE_USER_INFO_FAILED);
  return toAccount(row);
}

/** Sets a new password (already checked against SPEC §5's rules) once the current one is proven;
 * SSO users have none to change, and staff acting as the user may not change it. */
export async function changePassword(
  db: Db,
  user: AuthenticatedUser,
  passwords: { current_password: string; new_password: string },
): Promise<void> {
  refuseDuringImpersonation(user);
  if (user.identityProvider !== null) throw new AppError(403, UserErrors.UPDATE_PASSWORD_FAILED);
  await requireCurrentPassword(db, user.id, passwords.current_password);
  const updated = await updateUserPasswordHash(db, user.id, await hashPassword(passwords.new_password));
  if (!updated) throw new AppError(400, UserErrors.UPDATE_PASSWORD_FAILED);
  // Every session opened with the old password ends (issue 23): another device's refresh token
  // must not outlive the password that opened it.
  await revokeAccountSignIns(db, user.id);
}

/** The account's stored password must match; wrong guesses are limited like failed sign-ins. An
 * account without a stored password (known only from an external provider's tokens) cannot prove
 * one, so it cannot set one here either. */
async function requireCurrentPassword(db: Db, userId: string, currentPassword: string): Promise<void> {
  const limiter = new SignInLimiter(db);
  const retryAfterMs = await limiter.currentPasswordRetryAfterMs(userId);
  if (retryAfterMs > 0) {
    throw new AppError(429, CommonErrors.TOO_MANY_REQUESTS, { retry_after_seconds: Math.ceil(retryAfterMs / 1000) });
  }
  const row = await findUserById(db, userId);
  if (row?.passwordHash && (await verifyPassword(currentPassword, row.passwordHash))) return;
  await limiter.recordCurrentPasswordFailure(userId);
  throw new AppError(400, UserErrors.UPDATE_PASSWORD_WRONG_CURRENT_PASSWORD, { field: "current_password" });
}

function toAccount(row: UserRow): UserAccount {
  return {
    id: row.id,
    email: row.email,
    first_name: row.firstName,
    last_name: row.lastName,
    organization: normalizeOrganization(row.organization),
    allow_impersonation: row.allowImpersonation,
    identity_provider: row.identityProvider,
  };
}
