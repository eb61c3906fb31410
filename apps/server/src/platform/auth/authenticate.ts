import { CommonErrors } from "@polyforge/contracts/errors";
import type { FastifyRequest, onRequestAsyncHookHandler } from "fastify";
import { AppError } from "../errors";
import type { AccessClaims, TokenVerifier } from "./tokens";
import type { AuthenticatedUser } from "./user";

declare module "fastify" {
  interface FastifyRequest {
    /** The caller, set by the authentication hook on routes that require sign-in; else null. */
    user: AuthenticatedUser | null;
  }
}

/** Turns verified claims into the caller: provisions the user row, checks impersonation. */
export type UserResolver = (claims: AccessClaims) => Promise<AuthenticatedUser>;

/** Verifies a raw token and resolves its user; throws the UNAUTHORIZED AppError that fits. */
export type Authenticator = (token: string | undefined) => Promise<AuthenticatedUser>;

export function createAuthenticator(verifier: TokenVerifier, resolveUser: UserResolver): Authenticator {
  return async (token) => {
    if (!token) throw new AppError(401, CommonErrors.UNAUTHORIZED_MISSING_TOKEN);
    return resolveUser(await verifier.verify(token));
  };
}

/** The token of `Authorization: Bearer <token>`, if any. */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  // A header that is present but not a bearer token is a malformed token, not a missing one.
  return match ? match[1] : header;
}

/** onRequest hook for a scope of routes that need a signed-in caller. */
export function authenticationHook(authenticate: Authenticator): onRequestAsyncHookHandler {
  return async (request) => {
    request.user = await authenticate(bearerToken(request));
  };
}

/** The caller on a route behind the authentication hook. */
export function requireUser(request: FastifyRequest): AuthenticatedUser {
  if (!request.user) throw new AppError(401, CommonErrors.UNAUTHORIZED_MISSING_TOKEN);
  return request.user;
}
