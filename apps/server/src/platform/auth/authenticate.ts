import { CommonErrors } from "@polyforge/contracts/errors";
import type { FastifyRequest, onRequestAsyncHookHandler } from "fastify";
import { AppError } from "../errors";
import type { AccessClaims, TokenVerifier } from "./tokens";
import type { AuthenticatedUser } from "./user";

declare module "fastify" {
  interface FastifyRequest {
    /** The caller, set by the authentication hook on routes that require sign-in; else null. */
    user: AuthenticatedUser | null;
    /** On a route with `config.deferUser`: the token's verified claims, its user not yet read (the
     * route reads the user row in its own query, or through callerOf). Else null. */
    claims: AccessClaims | null;
  }
  interface FastifyContextConfig {
    /** The authentication hook verifies the token but leaves the user row to the route. */
    deferUser?: boolean;
  }
}

/** Turns verified claims into the caller: provisions the user row, checks impersonation. */
export type UserResolver = (claims: AccessClaims) => Promise<AuthenticatedUser>;

/** Verifies a raw token and resolves its user; throws the UNAUTHORIZED AppError that fits. */
export interface Authenticator {
  (token: string | undefined): Promise<AuthenticatedUser>;
  /** The token's verified claims alone (no user row read). */
  claims(token: string | undefined): Promise<AccessClaims>;
  resolve: UserResolver;
}

export function createAuthenticator(verifier: TokenVerifier, resolveUser: UserResolver): Authenticator {
  const claims = async (token: string | undefined) => {
    if (!token) throw new AppError(401, CommonErrors.UNAUTHORIZED_MISSING_TOKEN);
    return verifier.verify(token);
  };
  return Object.assign(async (token: string | undefined) => resolveUser(await claims(token)), {
    claims,
    resolve: resolveUser,
  });
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
    if (request.routeOptions.config.deferUser) {
      request.claims = await authenticate.claims(bearerToken(request));
      deferredResolvers.set(request, authenticate.resolve);
    } else {
      request.user = await authenticate(bearerToken(request));
    }
  };
}

/** How each request of a deferUser route resolves its user when it needs the whole caller. */
const deferredResolvers = new WeakMap<FastifyRequest, UserResolver>();

/** The caller, on any route behind the authentication hook: read now on a deferUser route. */
export async function callerOf(request: FastifyRequest): Promise<AuthenticatedUser> {
  if (!request.user && request.claims) {
    const resolve = deferredResolvers.get(request);
    if (resolve) request.user = await resolve(request.claims);
  }
  return requireUser(request);
}

/** The verified claims on a deferUser route. */
export function requireClaims(request: FastifyRequest): AccessClaims {
  if (!request.claims) throw new AppError(401, CommonErrors.UNAUTHORIZED_MISSING_TOKEN);
  return request.claims;
}

/** The caller on a route behind the authentication hook. */
export function requireUser(request: FastifyRequest): AuthenticatedUser {
  if (!request.user) throw new AppError(401, CommonErrors.UNAUTHORIZED_MISSING_TOKEN);
  return request.user;
}
