import { CommonErrors } from "@polyforge/contracts/errors";
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  type JSONWebKeySet,
  type JWTPayload,
  type JWTVerifyGetKey,
  errors as joseErrors,
  jwtVerify,
} from "jose";
import { AppError } from "../errors";
import { isUuid } from "../ids";

/** The claims we read from an access token (SPEC §3, ARCHITECTURE §4). */
export interface AccessClaims {
  sub: string;
  email: string;
  given_name?: string;
  family_name?: string;
  name?: string;
  preferred_username?: string;
  organization?: string;
  realm_access?: { roles?: string[] };
  allow_impersonation?: boolean;
  impersonator?: unknown;
  identity_provider?: string;
}

/** An issuer and the public keys its tokens are signed with (the embedded provider's, or test keys). */
export interface IssuerKeys {
  issuer: string;
  publicJwks: JSONWebKeySet;
}

export interface TokenVerifier {
  issuer: string;
  /** The verified claims, or an AppError with the UNAUTHORIZED code that fits. */
  verify(token: string): Promise<AccessClaims>;
}

/** Verifies against keys held in memory (the embedded provider runs in this process). */
export function localTokenVerifier(keys: IssuerKeys, audience?: string): TokenVerifier {
  const keySet = createLocalJWKSet(keys.publicJwks);
  return { issuer: keys.issuer, verify: (token) => verifyToken(token, keys.issuer, async () => keySet, audience) };
}

/** Verifies against an external provider's JWKS, found through its discovery document on first use
 * (so the server starts even while the provider is still starting). */
export function remoteTokenVerifier(issuer: string, audience?: string): TokenVerifier {
  let keySet: Promise<JWTVerifyGetKey> | undefined;
  const discoverKeys = async (): Promise<JWTVerifyGetKey> => {
    const response = await fetch(`${issuer}/.well-known/openid-configuration`);
    if (!response.ok) throw new Error(`OpenID discovery at ${issuer} answered ${response.status}`);
    const discovery = (await response.json()) as { jwks_uri?: string };
    if (!discovery.jwks_uri) throw new Error(`OpenID discovery at ${issuer} names no jwks_uri`);
    return createRemoteJWKSet(new URL(discovery.jwks_uri));
  };
  const keys = () => {
    keySet ??= discoverKeys().catch((err) => {
      keySet = undefined; // try discovery again on the next request
      throw err;
    });
    return keySet;
  };
  return { issuer, verify: (token) => verifyToken(token, issuer, keys, audience) };
}

async function verifyToken(
  token: string,
  issuer: string,
  keys: () => Promise<JWTVerifyGetKey>,
  audience: string | undefined,
): Promise<AccessClaims> {
  try {
    decodeProtectedHeader(token);
    decodeJwt(token);
  } catch {
    throw new AppError(401, CommonErrors.UNAUTHORIZED_TOKEN_DECODE_ERROR);
  }

  let keySet: JWTVerifyGetKey;
  try {
    keySet = await keys();
  } catch (err) {
    throw new AppError(500, CommonErrors.SERVER_ERROR_USER_PUBLIC_KEY_ERROR, {}, { cause: err });
  }

  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, keySet, { issuer, audience, algorithms: ["RS256"] }));
  } catch (err) {
    // Bad signature, expiry, foreign issuer, unknown key, wrong algorithm: the token is not ours.
    if (err instanceof joseErrors.JOSEError && !(err instanceof joseErrors.JWKSTimeout)) {
      throw new AppError(401, CommonErrors.UNAUTHORIZED_INVALID_TOKEN);
    }
    throw new AppError(500, CommonErrors.SERVER_ERROR_USER_PUBLIC_KEY_ERROR, {}, { cause: err });
  }

  if (typeof payload.sub !== "string" || !isUuid(payload.sub) || typeof payload.email !== "string" || !payload.email) {
    throw new AppError(401, CommonErrors.UNAUTHORIZED_INVALID_PAYLOAD);
  }
  return payload as unknown as AccessClaims;
}
