import { CommonErrors } from "@polyforge/contracts/errors";
import { type Organization, organizationAllowed } from "@polyforge/contracts/organizations";
import type { preHandlerAsyncHookHandler } from "fastify";
import { AppError } from "../errors";
import { requireUser } from "./authenticate";
import type { AuthenticatedUser } from "./user";

/** SPEC §6: a role check passes if the user holds any of the listed roles. */
export function hasAnyRole(user: AuthenticatedUser, roles: readonly string[]): boolean {
  return roles.some((role) => user.roles.includes(role));
}

/** Route preHandler: 403 FORBIDDEN.INSUFFICIENT_PERMISSIONS unless the caller holds one of the roles. */
export function requireRole(...roles: string[]): preHandlerAsyncHookHandler {
  return async (request) => {
    if (!hasAnyRole(requireUser(request), roles)) {
      throw new AppError(403, CommonErrors.FORBIDDEN_INSUFFICIENT_PERMISSIONS);
    }
  };
}

/** Route preHandler: 403 FORBIDDEN.POLICY_CHECK_FAILED unless the caller's organization is listed
 * (the product's own organization always passes, SPEC §6). */
export function requireOrganization(...organizations: Organization[]): preHandlerAsyncHookHandler {
  return async (request) => {
    if (!organizationAllowed(requireUser(request).organization, organizations)) {
      throw new AppError(403, CommonErrors.FORBIDDEN_POLICY_CHECK_FAILED);
    }
  };
}
