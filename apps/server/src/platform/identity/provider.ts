import { createHmac, randomBytes } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import Provider, { type ClientMetadata, type Configuration, errors, type KoaContextWithOIDC } from "oidc-provider";
import type { Db } from "../db/database";
import { findUserById, userClaims } from "./accounts";
import { databaseAdapterFactory } from "./adapter";
import { type ImpersonationResult, impersonatorClaim, recordImpersonation } from "./impersonation";
import type { IdentityKeys } from "./keys";
import { contentSecurityPolicy, logoutPage, messagePage } from "./pages";

/** The single client: the web app, a public client (no secret) using PKCE S256. */
const WEB_CLIENT_ID = "polyforge-web";
/** Access tokens are JWTs for this audience: the PolyForge API. */
export const API_AUDIENCE = "polyforge-api";
/** The resource indicator (RFC 8707) every authorization resolves to; it makes access tokens JWTs. */
const API_RESOURCE = "urn:polyforge:api";

/** Keycloak's endpoint paths, so both providers look alike to the web app and to operators. */
export const ROUTES = {
  authorization: "/protocol/openid-connect/auth",
  token: "/protocol/openid-connect/token",
  end_session: "/protocol/openid-connect/logout",
  jwks: "/protocol/openid-connect/certs",
  userinfo: "/protocol/openid-connect/userinfo",
} as const;

const PROFILE_CLAIMS = ["preferred_username", "name", "given_name", "family_name"];
const EMAIL_CLAIMS = ["email", "email_verified"];
const POLYFORGE_CLAIMS = ["organization", "realm_access", "allow_impersonation", "impersonator", "identity_provider"];

const MINUTE = 60;
const HOUR = 60 * MINUTE;
/** Like Keycloak's defaults: short access tokens, a sign-in lasts at most 10 hours. */
const ACCESS_TOKEN_TTL = 5 * MINUTE;
const SESSION_TTL = 10 * HOUR;

export interface ProviderOptions {
  issuer: string;
  /** PUBLIC_URL's origin: where the web app lives. Any page there may receive the sign-in result. */
  appOrigin: string;
  db: Db;
  keys: IdentityKeys;
  logger: FastifyBaseLogger;
}

export function createProvider({ issuer, appOrigin, db, keys, logger }: ProviderOptions): Provider {
  const mountPath = new URL(issuer).pathname;
  const configuration: Configuration = {
    adapter: databaseAdapterFactory(db),
    jwks: { keys: [keys.signingKey as never] },
    cookies: {
      keys: keys.cookieKeys,
      names: {
        session: "polyforge_session",
        interaction: "polyforge_interaction",
        resume: "polyforge_interaction_resume",
      },
    },
    clients: [webClient(appOrigin)],
    routes: ROUTES,
    // Authorization code flow only, for public clients only, always with PKCE (S256 is the one
    // method oidc-provider implements).
    responseTypes: ["code"],
    clientAuthMethods: ["none"],
    pkce: { required: () => true },
    scopes: ["openid", "profile", "email"],
    claims: {
      openid: ["sub", ...PROFILE_CLAIMS, ...EMAIL_CLAIMS, ...POLYFORGE_CLAIMS],
      profile: PROFILE_CLAIMS,
      email: EMAIL_CLAIMS,
    },
    // ID tokens carry every claim of the granted scopes, as Keycloak's do.
    conformIdTokenClaims: false,
    // The userinfo endpoint is ours (see userinfo.ts): oidc-provider's cannot read JWT access tokens.
    discovery: { userinfo_endpoint: `${issuer}${ROUTES.userinfo}` },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      resourceIndicators: apiResourceIndicator(),
      rpInitiatedLogout: signOutPages(appOrigin),
    },
    interactions: { url: (_ctx, interaction) => `${mountPath}/interaction/${interaction.uid}` },
    ...accountClaims(db),
    loadExistingGrant: grantEverythingAsked(db),
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed("refresh_token"),
    ttl: TOKEN_LIFETIMES,
    clientBasedCORS: (_ctx, origin) => origin === appOrigin,
    renderError: (ctx, out) => {
      const description = [out.error, out.error_description].filter(Boolean).join(": ");
      ctx.set("Content-Security-Policy", contentSecurityPolicy());
      ctx.type = "html";
      ctx.body = messagePage("Something went wrong", description || "The request could not be completed.", appOrigin);
    },
  };

  const provider = new Provider(issuer, configuration);
  // Behind PUBLIC_URL: the mount passes the public protocol and host as X-Forwarded-* headers.
  provider.proxy = true;
  // Errors are logged through the server's logger, not Koa's stderr printer.
  provider.silent = true;
  provider.on("server_error", (_ctx: KoaContextWithOIDC, err: Error) =>
    logger.error({ err }, "identity provider error"),
  );
  // keycloak-js sends the current page as redirect_uri and post_logout_redirect_uri.
  const isAppPage = appPageCheck(appOrigin, mountPath);
  provider.Client.prototype.redirectUriAllowed = isAppPage;
  provider.Client.prototype.postLogoutRedirectUriAllowed = isAppPage;
  makeRefreshTokensJwtShaped(provider, issuer, keys);
  return provider;
}

/** The single client: the web app, a public client (no secret) using PKCE S256. */
function webClient(appOrigin: string): ClientMetadata {
  return {
    client_id: WEB_CLIENT_ID,
    client_name: "PolyForge",
    token_endpoint_auth_method: "none",
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    // Listed for completeness; `appPageCheck` accepts every page of the app, since keycloak-js
    // sends the current page as redirect_uri.
    redirect_uris: [`${appOrigin}/`, `${appOrigin}/silent-check-sso.html`],
    post_logout_redirect_uris: [`${appOrigin}/`],
  };
}

/** Every authorization resolves to the API (RFC 8707), which makes access tokens RS256 JWTs. */
function apiResourceIndicator(): NonNullable<Configuration["features"]>["resourceIndicators"] {
  return {
    enabled: true,
    defaultResource: () => API_RESOURCE,
    useGrantedResource: () => true,
    getResourceServerInfo: (_ctx, indicator) => {
      if (indicator !== API_RESOURCE) throw new errors.InvalidTarget();
      return {
        scope: "openid profile email",
        audience: API_AUDIENCE,
        accessTokenFormat: "jwt",
        accessTokenTTL: ACCESS_TOKEN_TTL,
        jwt: { sign: { alg: "RS256" } },
      };
    },
  };
}

/** Sign-out: the confirmation page (submitted by itself when the app asks) and the signed-out page. */
function signOutPages(appOrigin: string): NonNullable<Configuration["features"]>["rpInitiatedLogout"] {
  return {
    enabled: true,
    logoutSource: (ctx, form) => {
      // keycloak-js always names the ID token: then the request is the app's and needs no click.
      const nonce = ctx.oidc.params?.id_token_hint ? randomBytes(16).toString("base64") : undefined;
      ctx.set("Content-Security-Policy", contentSecurityPolicy(nonce));
      ctx.type = "html";
      ctx.body = logoutPage(form, `${appOrigin}/`, nonce);
    },
    postLogoutSuccessSource: (ctx) => {
      ctx.set("Content-Security-Policy", contentSecurityPolicy());
      ctx.type = "html";
      ctx.body = messagePage("Signed out", "You have signed out of PolyForge.", `${appOrigin}/`);
    },
  };
}

/** The user's claims in ID tokens and, for the API, in access tokens too. */
function accountClaims(db: Db): Pick<Configuration, "findAccount" | "extraTokenClaims"> {
  return {
    findAccount: async (_ctx, id, token) => {
      const user = await findUserById(db, id);
      if (!user) return undefined;
      const grantId = token && "grantId" in token ? token.grantId : undefined;
      const impersonation = await impersonatorClaim(db, grantId, user.id);
      return { accountId: user.id, claims: () => ({ ...userClaims(user), ...impersonation }) };
    },
    extraTokenClaims: async (_ctx, token) => {
      if (token.kind !== "AccessToken") return undefined;
      const user = await findUserById(db, token.accountId);
      if (!user) return undefined;
      const { sub: _sub, ...claims } = userClaims(user);
      return {
        ...claims,
        ...(await impersonatorClaim(db, token.grantId, user.id)),
        azp: token.clientId,
        ...(token.sid ? { sid: token.sid } : {}),
      };
    },
  };
}

/** Our own client: consent is implicit, so whatever it asks for is granted. A sign-in that has just
 * happened starts a new grant, so nothing of an earlier one (an impersonation) carries over. */
function grantEverythingAsked(db: Db): Configuration["loadExistingGrant"] {
  return async (ctx) => {
    const { client, session, result } = ctx.oidc;
    if (!client || !session?.accountId) return undefined;
    const grantId = result?.login ? undefined : session.grantIdFor(client.clientId);
    const grant =
      (grantId ? await ctx.oidc.provider.Grant.find(grantId) : undefined) ??
      new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId: session.accountId });
    grant.addOIDCScope([...ctx.oidc.requestParamOIDCScopes].join(" "));
    for (const [indicator, server] of Object.entries(ctx.oidc.resourceServers ?? {})) {
      grant.addResourceScope(indicator, server.scope);
    }
    const grantJti = await grant.save();
    const impersonation = result?.impersonation as ImpersonationResult | undefined;
    if (impersonation) await recordImpersonation(db, grantJti, session.accountId, impersonation, SESSION_TTL);
    return grant;
  };
}

const TOKEN_LIFETIMES: Configuration["ttl"] = {
  AccessToken: ACCESS_TOKEN_TTL,
  AuthorizationCode: MINUTE,
  IdToken: ACCESS_TOKEN_TTL,
  Interaction: HOUR,
  Session: SESSION_TTL,
  Grant: SESSION_TTL,
  // A rotated refresh token keeps the lifetime left to the one it replaces.
  RefreshToken: (ctx) => ctx?.oidc?.entities.RotatedRefreshToken?.remainingTTL ?? SESSION_TTL,
};

/** Any page of the web app may receive the sign-in result; nothing elsewhere may (nor the
 * provider's own pages or the API). */
function appPageCheck(appOrigin: string, mountPath: string): (uri: string) => boolean {
  return (uri) => {
    const url = URL.parse(uri);
    return (
      url !== null &&
      url.origin === appOrigin &&
      !uri.includes("#") &&
      !url.pathname.startsWith(`${mountPath}/`) &&
      !url.pathname.startsWith("/api/")
    );
  };
}

/** keycloak-js decodes the refresh token as a JWT (it throws on an opaque string), so refresh token
 * values are JWTs, like Keycloak's: HS256 over a random id, stored as the token's key. They are
 * looked up by value; the MAC only keeps them from being mistaken for access tokens (RS256). */
function makeRefreshTokensJwtShaped(provider: Provider, issuer: string, keys: IdentityKeys): void {
  const macKey = createHmac("sha256", keys.cookieKeys[0]!).update("refresh-token").digest();
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const prototype = provider.RefreshToken.prototype as unknown as {
    generateTokenId(this: { clientId?: string }): string;
  };
  prototype.generateTokenId = function generateTokenId() {
    const header = encode({ alg: "HS256", typ: "JWT" });
    const payload = encode({
      typ: "Refresh",
      iss: issuer,
      azp: this.clientId,
      iat: Math.floor(Date.now() / 1000),
      jti: randomBytes(32).toString("base64url"),
    });
    const mac = createHmac("sha256", macKey).update(`${header}.${payload}`).digest("base64url");
    return `${header}.${payload}.${mac}`;
  };
}
