import { CommonErrors } from "@polyforge/contracts/errors";
import { AppError } from "../errors";
import type { AccessClaims } from "./tokens";

/** Keycloak sends `impersonator` as `{id, username}`; the embedded provider as the staff email. */
export function impersonatorOf(claims: AccessClaims): string | null {
  const value = claims.impersonator;
  if (typeof value === "string" && value) return value;
  if (value && typeof value === "object") {
    const { username, id } = value as { username?: unknown; id?: unknown };
    if (typeof username === "string" && username) return username;
    if (typeof id === "string" && id) return id;
  }
  return null;
}

/** SPEC §6: a token of an impersonation session is refused (401) unless the user allows it; answers
 * the impersonator, or null. */
export function checkImpersonation(claims: AccessClaims, allowImpersonation: boolean): string | null {
  const impersonator = impersonatorOf(claims);
  if (impersonator && !allowImpersonation) {
    throw new AppError(401, CommonErrors.UNAUTHORIZED_IMPERSONATION_NOT_ALLOWED);
  }
  return impersonator;
}
