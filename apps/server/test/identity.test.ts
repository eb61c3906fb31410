import { createHash, randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PASSWORD_RULES, passwordProblems } from "@polyforge/contracts/users";
import { eq, sql } from "drizzle-orm";
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, type JSONWebKeySet, jwtVerify } from "jose";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type App, buildApp } from "../src/app";
import { loadConfig } from "../src/platform/config";
import { type DatabaseTarget, openDatabase } from "../src/platform/db/database";
import { tokenHash } from "../src/platform/identity/adapter";
import { createEmbeddedIdentity } from "../src/platform/identity/embedded";
import { verifyPassword } from "../src/platform/identity/passwords";
import { identitySecrets, oidcPayloads, users } from "../src/platform/identity/schema";
import { createTestDatabase, type DatabaseKind, databaseKinds } from "./support/database";

// The embedded OpenID provider driven over real HTTP, as a browser running keycloak-js would:
// authorize → sign-in page → credentials → code → token exchange, refresh, check-sso, logout.

const CLIENT_ID = "polyforge-web";
const DEMO_PASSWORD = "Demo-Passw0rd!";
const GOOD_PASSWORD = "Strong-Passw0rd!";

interface Server {
  app: App;
  base: string;
  issuer: string;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** The whole app with the embedded provider (no OIDC_ISSUER), listening on a real port; `env` adds
 * settings. */
async function startServer(database: DatabaseTarget, port?: number, env: Record<string, string> = {}): Promise<Server> {
  const listenPort = port ?? (await freePort());
  const base = `http://localhost:${listenPort}`;
  const config = loadConfig({
    PORT: String(listenPort),
    PUBLIC_URL: base,
    LOG_LEVEL: "silent",
    POLYFORGE_DATA_DIR: mkdtempSync(join(tmpdir(), "polyforge-identity-")),
    WEB_DIST_DIR: join(tmpdir(), "polyforge-identity-no-web"),
    POLYFORGE_DEMO_PASSWORD: DEMO_PASSWORD,
    // The suites open many accounts from 127.0.0.1; the sign-up throttle has its own test.
    POLYFORGE_SIGN_UPS_PER_ADDRESS: "1000",
    ...env,
  });
  const app = await buildApp({ config, database });
  await app.listen({ port: listenPort, host: "127.0.0.1" });
  return { app, base, issuer: `${base}/auth/realms/polyforge`, close: () => app.close() };
}

/** A browser: a cookie jar and manual redirects, so each hop can be checked. */
class Browser {
  private readonly cookies = new Map<string, string>();

  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set("cookie", [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    const response = await fetch(url, { ...init, headers, redirect: "manual" });
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";");
      const [name, value] = [pair!.slice(0, pair!.indexOf("=")), pair!.slice(pair!.indexOf("=") + 1)];
      const expired = attributes.some((a) => /^\s*expires=.*1970/i.test(a) || /^\s*max-age=0\b/i.test(a));
      if (expired || value === "") this.cookies.delete(name.trim());
      else this.cookies.set(name.trim(), value);
    }
    return response;
  }

  get(url: string): Promise<Response> {
    return this.request(url);
  }

  post(url: string, form: Record<string, string>): Promise<Response> {
    return this.request(url, { method: "POST", body: new URLSearchParams(form) });
  }

  /** Follows redirects while they stay on the provider; returns the first response that is not a
   * redirect there (a page) or the redirect back to the app (its Location). */
  async follow(response: Response, base: string): Promise<{ response: Response; appLocation?: string }> {
    let current = response;
    for (let hop = 0; hop < 10; hop++) {
      const location = current.headers.get("location");
      if (current.status < 300 || current.status >= 400 || !location) return { response: current };
      const next = new URL(location, base).toString();
      if (!new URL(next).pathname.startsWith("/auth/")) return { response: current, appLocation: next };
      current = await this.get(next);
    }
    throw new Error("too many redirects");
  }
}

interface Pkce {
  verifier: string;
  challenge: string;
}

function pkce(): Pkce {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

interface AuthorizeOptions {
  redirectUri?: string;
  prompt?: string;
  pkce?: Pkce;
  challengeMethod?: string;
  nonce?: string;
  state?: string;
  loginHint?: string;
}

function authorizeUrl(server: Server, o: AuthorizeOptions = {}): string {
  const params = new URLSearchParams({
    client_id: CLIENT_ID,
    redirect_uri: o.redirectUri ?? `${server.base}/systems?page_num=2`,
    response_type: "code",
    response_mode: "fragment",
    scope: "openid",
    state: o.state ?? randomUUID(),
    nonce: o.nonce ?? randomUUID(),
    code_challenge: (o.pkce ?? pkce()).challenge,
    code_challenge_method: o.challengeMethod ?? "S256",
  });
  if (o.prompt) params.set("prompt", o.prompt);
  if (o.loginHint) params.set("login_hint", o.loginHint);
  return `${server.issuer}/protocol/openid-connect/auth?${params}`;
}

/** The parameters the provider sent back to the app (keycloak-js asks for them in the fragment). */
function callbackParams(appLocation: string): URLSearchParams {
  return new URLSearchParams(new URL(appLocation).hash.slice(1));
}

function formOf(html: string): { action: string; csrf: string } {
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
  if (!action || !csrf) throw new Error(`no form in page:\n${html}`);
  return { action: action.replaceAll("&amp;", "&"), csrf };
}

/** Opens the sign-in page of a fresh authorization request. */
async function openSignIn(browser: Browser, server: Server, o: AuthorizeOptions = {}) {
  const { response } = await browser.follow(await browser.get(authorizeUrl(server, o)), server.base);
  expect(response.status).toBe(200);
  const html = await response.text();
  return { html, url: response.url, ...formOf(html) };
}

/** One sign-in attempt from its own sign-in page, as a person retrying would; `forwardedFor` is the
 * client address a reverse proxy in front of the server would name. */
async function signInAttempt(server: Server, email: string, password: string, forwardedFor?: string) {
  const browser = new Browser();
  const page = await openSignIn(browser, server);
  return browser.request(new URL(page.action, server.base).toString(), {
    method: "POST",
    body: new URLSearchParams({ csrf: page.csrf, email, password }),
    headers: forwardedFor ? { "x-forwarded-for": forwardedFor } : {},
  });
}

/** Signs in through the page and returns the parameters sent back to the app. */
async function signIn(browser: Browser, server: Server, email: string, password: string, o: AuthorizeOptions = {}) {
  const page = await openSignIn(browser, server, o);
  const posted = await browser.post(new URL(page.action, server.base).toString(), {
    csrf: page.csrf,
    email,
    password,
  });
  const { appLocation } = await browser.follow(posted, server.base);
  if (!appLocation) throw new Error(`sign-in did not return to the app (status ${posted.status})`);
  return callbackParams(appLocation);
}

interface TokenResponse {
  access_token: string;
  refresh_token: string;
  id_token: string;
  token_type: string;
  expires_in: number;
}

async function tokenRequest(server: Server, form: Record<string, string>) {
  const response = await fetch(`${server.issuer}/protocol/openid-connect/token`, {
    method: "POST",
    body: new URLSearchParams({ client_id: CLIENT_ID, ...form }),
  });
  return { status: response.status, body: (await response.json()) as TokenResponse & { error?: string } };
}

async function exchangeCode(server: Server, code: string, verifier: string, redirectUri: string) {
  return tokenRequest(server, {
    grant_type: "authorization_code",
    code,
    code_verifier: verifier,
    redirect_uri: redirectUri,
  });
}

/** Signs in and exchanges the code: what keycloak-js holds after `init`. */
async function signInForTokens(browser: Browser, server: Server, email: string, password: string) {
  const redirectUri = `${server.base}/dashboard`;
  const proof = pkce();
  const nonce = randomUUID();
  const params = await signIn(browser, server, email, password, { redirectUri, pkce: proof, nonce });
  const { status, body } = await exchangeCode(server, params.get("code")!, proof.verifier, redirectUri);
  expect(status).toBe(200);
  return { tokens: body, nonce };
}

async function jwks(server: Server): Promise<JSONWebKeySet> {
  return (await (await fetch(`${server.issuer}/protocol/openid-connect/certs`)).json()) as JSONWebKeySet;
}

/** The demo user's tokens from the code exchange: an RS256 access token for the API signed by the
 * published key, an ID token with the nonce, a refresh token keycloak-js can decode. */
async function expectDemoTokens(server: Server, body: TokenResponse, nonce: string) {
  // The access token is an RS256 JWT signed by the published key, for the API.
  const header = decodeProtectedHeader(body.access_token);
  expect(header.alg).toBe("RS256");
  const keys = await jwks(server);
  expect(keys.keys.map((k) => k.kid)).toContain(header.kid);
  expect(keys.keys.every((k) => k.d === undefined && k.p === undefined)).toBe(true);
  const { payload: access } = await jwtVerify(body.access_token, createLocalJWKSet(keys), {
    issuer: server.issuer,
    audience: "polyforge-api",
  });
  const [demo] = await server.app.database.db.select().from(users).where(eq(users.email, "demo@polyforge.local"));
  expect(access).toMatchObject({
    sub: demo!.id,
    preferred_username: "demo@polyforge.local",
    name: "Demo User",
    given_name: "Demo",
    family_name: "User",
    email: "demo@polyforge.local",
    email_verified: false,
    organization: "polyforge",
    realm_access: { roles: ["user"] },
    allow_impersonation: false,
    azp: CLIENT_ID,
  });
  expect(access).not.toHaveProperty("impersonator");
  expect(access).not.toHaveProperty("identity_provider");
  expect(access.exp! - access.iat!).toBe(300);

  // The ID token carries the nonce keycloak-js checks, and the same identity claims.
  const { payload: id } = await jwtVerify(body.id_token, createLocalJWKSet(keys), {
    issuer: server.issuer,
    audience: CLIENT_ID,
  });
  expect(id).toMatchObject({ sub: demo!.id, nonce, given_name: "Demo", organization: "polyforge" });

  // keycloak-js decodes the refresh token as a JWT too.
  expect(decodeJwt(body.refresh_token)).toMatchObject({ typ: "Refresh", iss: server.issuer });
}

describe.each(databaseKinds())("embedded identity provider on %s", (kind: DatabaseKind) => {
  let server: Server;
  let dropDatabase: () => Promise<void>;

  beforeAll(async () => {
    const database = await createTestDatabase(kind);
    dropDatabase = database.drop;
    server = await startServer(database.target);
  });
  afterAll(async () => {
    await server?.close();
    await dropDatabase?.();
  });

  it("publishes a discovery document for keycloak-js's generic OpenID mode", async () => {
    // The URLs come from PUBLIC_URL, whatever forwarding headers a client sends.
    const response = await fetch(`${server.issuer}/.well-known/openid-configuration`, {
      headers: { "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" },
    });
    expect(response.status).toBe(200);
    const doc = (await response.json()) as Record<string, unknown>;
    expect(doc).toMatchObject({
      issuer: server.issuer,
      authorization_endpoint: `${server.issuer}/protocol/openid-connect/auth`,
      token_endpoint: `${server.issuer}/protocol/openid-connect/token`,
      end_session_endpoint: `${server.issuer}/protocol/openid-connect/logout`,
      userinfo_endpoint: `${server.issuer}/protocol/openid-connect/userinfo`,
      jwks_uri: `${server.issuer}/protocol/openid-connect/certs`,
      code_challenge_methods_supported: ["S256"],
      response_types_supported: ["code"],
      id_token_signing_alg_values_supported: ["RS256"],
    });
    expect(doc.grant_types_supported).toEqual(expect.arrayContaining(["authorization_code", "refresh_token"]));
    expect(doc.response_modes_supported).toEqual(expect.arrayContaining(["query", "fragment"]));
  });

  it("signs the demo user in with the authorization code flow and PKCE S256, over HTTP", async () => {
    const browser = new Browser();
    const redirectUri = `${server.base}/systems?page_num=2`;
    const proof = pkce();
    const state = randomUUID();
    const nonce = randomUUID();

    // 1. The app sends the browser to the authorization endpoint; no session yet → sign-in page.
    const authorize = await browser.get(authorizeUrl(server, { redirectUri, pkce: proof, state, nonce }));
    expect(authorize.status).toBe(303);
    const page = await browser.follow(authorize, server.base);
    const html = await page.response.text();
    expect(html).toContain('<label for="email">Email</label>');
    expect(html).toContain('<label for="password">Password</label>');
    expect(html).toContain('<button type="submit">Sign in</button>');
    expect(html).toMatch(/<a href="[^"]+\/signup">Sign up<\/a>/);

    // 2. Credentials posted → back through the provider → the app's page with a code.
    const form = formOf(html);
    const posted = await browser.post(new URL(form.action, server.base).toString(), {
      csrf: form.csrf,
      email: "demo@polyforge.local",
      password: DEMO_PASSWORD,
    });
    expect(posted.status).toBe(303);
    const { appLocation } = await browser.follow(posted, server.base);
    expect(appLocation?.startsWith(`${redirectUri}#`)).toBe(true);
    const params = callbackParams(appLocation!);
    expect(params.get("state")).toBe(state);
    expect(params.get("iss")).toBe(server.issuer);

    // 3. The code and the verifier buy the tokens.
    const { status, body } = await exchangeCode(server, params.get("code")!, proof.verifier, redirectUri);
    expect(status).toBe(200);
    expect(body.token_type).toBe("Bearer");
    expect(body.expires_in).toBe(300);

    await expectDemoTokens(server, body, nonce);

    // 4. The API accepts the access token.
    const account = await fetch(`${server.base}/api/v2/users/account`, {
      headers: { authorization: `Bearer ${body.access_token}` },
    });
    expect(account.status).toBe(200);
    expect(await account.json()).toMatchObject({ email: "demo@polyforge.local", organization: "polyforge" });
  });

  it("refuses PKCE plain, a missing code challenge and a wrong verifier", async () => {
    const browser = new Browser();
    const redirectUri = `${server.base}/`;

    const plain = await browser.get(authorizeUrl(server, { redirectUri, challengeMethod: "plain" }));
    const plainError = callbackParams((await browser.follow(plain, server.base)).appLocation!);
    expect(plainError.get("error")).toBe("invalid_request");
    expect(plainError.get("code")).toBeNull();

    const noChallenge = new URL(authorizeUrl(server, { redirectUri }));
    noChallenge.searchParams.delete("code_challenge");
    noChallenge.searchParams.delete("code_challenge_method");
    const missing = await browser.follow(await browser.get(noChallenge.toString()), server.base);
    expect(callbackParams(missing.appLocation!).get("error")).toBe("invalid_request");

    const proof = pkce();
    const params = await signIn(browser, server, "demo@polyforge.local", DEMO_PASSWORD, { redirectUri, pkce: proof });
    const wrong = await exchangeCode(server, params.get("code")!, pkce().verifier, redirectUri);
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe("invalid_grant");
    // A wrong verifier does not burn the code for its real holder, who can use it exactly once.
    const right = await exchangeCode(server, params.get("code")!, proof.verifier, redirectUri);
    expect(right.status).toBe(200);
    const replay = await exchangeCode(server, params.get("code")!, proof.verifier, redirectUri);
    expect(replay.status).toBe(400);
  });

  it("accepts any page of the app as redirect URI, and nothing elsewhere", async () => {
    const browser = new Browser();
    const foreign = await browser.get(authorizeUrl(server, { redirectUri: "https://evil.example/steal" }));
    expect(foreign.status).toBe(400);
    expect(foreign.headers.get("location")).toBeNull();
    expect(await foreign.text()).toContain("redirect_uri");

    const silent = await browser.get(authorizeUrl(server, { redirectUri: `${server.base}/silent-check-sso.html` }));
    expect(silent.status).toBe(303);
  });

  it("refreshes with the refresh_token grant, rotating the refresh token", async () => {
    const { tokens } = await signInForTokens(new Browser(), server, "demo@polyforge.local", DEMO_PASSWORD);
    const refreshed = await tokenRequest(server, { grant_type: "refresh_token", refresh_token: tokens.refresh_token });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(tokens.refresh_token);
    const before = decodeJwt(tokens.access_token);
    const after = decodeJwt(refreshed.body.access_token);
    expect(after.sub).toBe(before.sub);
    expect(after.jti).not.toBe(before.jti);
    expect(after.organization).toBe("polyforge");

    // The rotated-out token is spent; the new one works.
    const reused = await tokenRequest(server, { grant_type: "refresh_token", refresh_token: tokens.refresh_token });
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe("invalid_grant");
  });

  it("answers prompt=none with login_required without a session, and with a code within one", async () => {
    const browser = new Browser();
    const redirectUri = `${server.base}/silent-check-sso.html`;
    const silent = await browser.follow(
      await browser.get(authorizeUrl(server, { redirectUri, prompt: "none" })),
      server.base,
    );
    const noSession = callbackParams(silent.appLocation!);
    expect(noSession.get("error")).toBe("login_required");

    await signIn(browser, server, "demo@polyforge.local", DEMO_PASSWORD);
    const again = await browser.follow(
      await browser.get(authorizeUrl(server, { redirectUri, prompt: "none" })),
      server.base,
    );
    const withSession = callbackParams(again.appLocation!);
    expect(withSession.get("error")).toBeNull();
    expect(withSession.get("code")).toBeTruthy();
  });

  it("ends the session: confirmed without a click when the ID token is named, back to the app", async () => {
    const browser = new Browser();
    const { tokens } = await signInForTokens(browser, server, "demo@polyforge.local", DEMO_PASSWORD);
    const postLogout = `${server.base}/`;
    const logoutUrl = `${server.issuer}/protocol/openid-connect/logout?${new URLSearchParams({
      client_id: CLIENT_ID,
      post_logout_redirect_uri: postLogout,
      id_token_hint: tokens.id_token,
    })}`;
    const confirm = await browser.get(logoutUrl);
    expect(confirm.status).toBe(200);
    const html = await confirm.text();
    // The page submits itself (the script's nonce is allowed by its CSP).
    const nonce = /<script nonce="([^"]+)">/.exec(html)?.[1];
    expect(nonce).toBeTruthy();
    expect(confirm.headers.get("content-security-policy")).toContain(`'nonce-${nonce}'`);
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)?.[1];
    const done = await browser.post(new URL(action!, server.base).toString(), { xsrf: xsrf!, logout: "yes" });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe(postLogout);

    // Signed out: check-sso finds no session, and the refresh token died with the session.
    const silent = await browser.follow(
      await browser.get(authorizeUrl(server, { redirectUri: postLogout, prompt: "none" })),
      server.base,
    );
    expect(callbackParams(silent.appLocation!).get("error")).toBe("login_required");
    const refresh = await tokenRequest(server, { grant_type: "refresh_token", refresh_token: tokens.refresh_token });
    expect(refresh.status).toBe(400);
  });

  it("asks before ending a session when the request does not name its ID token", async () => {
    const browser = new Browser();
    await signIn(browser, server, "demo@polyforge.local", DEMO_PASSWORD);
    const page = await browser.get(
      `${server.issuer}/protocol/openid-connect/logout?${new URLSearchParams({ client_id: CLIENT_ID })}`,
    );
    expect(page.status).toBe(200);
    const html = await page.text();
    // No script: another site linking here cannot sign the user out without their click.
    expect(html).not.toContain("<script");
    expect(page.headers.get("content-security-policy")).toContain("script-src 'none'");
    expect(html).toContain(">Sign out</button>");
    expect(html).toContain(`<a href="${server.base}/">Back to PolyForge</a>`);

    // Seeing the page changes nothing: the session is still there.
    const silent = await browser.follow(
      await browser.get(authorizeUrl(server, { redirectUri: `${server.base}/`, prompt: "none" })),
      server.base,
    );
    expect(callbackParams(silent.appLocation!).get("code")).toBeTruthy();
  });

  it("serves userinfo for a valid access token only", async () => {
    const { tokens } = await signInForTokens(new Browser(), server, "demo@polyforge.local", DEMO_PASSWORD);
    const userinfo = (authorization?: string) =>
      fetch(`${server.issuer}/protocol/openid-connect/userinfo`, {
        headers: authorization ? { authorization } : {},
      });

    const ok = await userinfo(`Bearer ${tokens.access_token}`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({
      sub: decodeJwt(tokens.access_token).sub,
      email: "demo@polyforge.local",
      given_name: "Demo",
      family_name: "User",
      organization: "polyforge",
      realm_access: { roles: ["user"] },
    });

    const missing = await userinfo();
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer/);

    const tampered = `${tokens.access_token.slice(0, -4)}AAAA`;
    for (const bad of [`Bearer ${tampered}`, "Bearer not-a-token", `Bearer ${tokens.refresh_token}`]) {
      const response = await userinfo(bad);
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toContain('error="invalid_token"');
    }
  });

  it("says 'Invalid email or password.' for a wrong password or an unknown email", async () => {
    const browser = new Browser();
    for (const [email, password] of [
      ["demo@polyforge.local", "Wrong-Passw0rd!"],
      ["nobody@example.org", DEMO_PASSWORD],
      ["", ""],
    ] as const) {
      const page = await openSignIn(browser, server);
      const response = await browser.post(new URL(page.action, server.base).toString(), {
        csrf: page.csrf,
        email,
        password,
      });
      expect(response.status).toBe(401);
      const html = await response.text();
      expect(html).toContain("Invalid email or password.");
      expect(html).not.toContain(password || "never-there");
      if (email) expect(html).toContain(`value="${email}"`);
    }
  });

  it("serves its pages unframeable, uncached, without scripts, and escapes what it echoes", async () => {
    const hint = '"><script>alert(1)</script>';
    const page = await openSignIn(new Browser(), server, { loginHint: hint });
    expect(page.html).not.toContain("<script>");
    expect(page.html).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
    const response = await new Browser().get(page.url);
    // A fresh browser has no interaction cookie: the page says the request expired.
    expect(response.status).toBe(400);
    expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(response.headers.get("content-security-policy")).toContain("script-src 'none'");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await response.text()).toContain("This sign-in request has expired");
  });

  it("refuses a sign-in form posted without its CSRF token", async () => {
    const browser = new Browser();
    const page = await openSignIn(browser, server);
    const url = new URL(page.action, server.base).toString();
    for (const csrf of ["", "forged"]) {
      const response = await browser.post(url, { csrf, email: "demo@polyforge.local", password: DEMO_PASSWORD });
      expect(response.status).toBe(403);
      expect(response.headers.get("location")).toBeNull();
    }
  });

  it("limits failed sign-ins to 10 per 15 minutes per address and email", async () => {
    const browser = new Browser();
    const email = `limited-${randomUUID().slice(0, 8)}@example.org`;
    await signUp(browser, server, { email });

    for (let i = 0; i < 10; i++) expect((await signInAttempt(server, email, `Wrong-${i}-Passw0rd!`)).status).toBe(401);
    // The 11th attempt is refused before the password is even looked at, the right one included.
    const limited = await signInAttempt(server, email.toUpperCase(), GOOD_PASSWORD);
    expect(limited.status).toBe(429);
    expect(await limited.text()).toContain("Too many sign-in attempts. Try again in 15 minutes.");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(14 * 60);
    // Without TRUST_PROXY a client cannot pass for another by naming one in X-Forwarded-For.
    expect((await signInAttempt(server, email, GOOD_PASSWORD, "198.51.100.20")).status).toBe(429);

    // Another email from the same address is not affected.
    const other = await signIn(new Browser(), server, "demo@polyforge.local", DEMO_PASSWORD);
    expect(other.get("code")).toBeTruthy();
  });

  it("behind a trusted proxy (TRUST_PROXY) limits failed sign-ins per client address, not per proxy", async () => {
    const database = await createTestDatabase(kind);
    const proxied = await startServer(database.target, undefined, { TRUST_PROXY: "loopback" });
    try {
      const email = `proxied-${randomUUID().slice(0, 8)}@example.org`;
      await signUp(new Browser(), proxied, { email });
      const [client, colleague] = ["198.51.100.7", "198.51.100.8"];
      for (let i = 0; i < 10; i++) {
        expect((await signInAttempt(proxied, email, `Wrong-${i}-Passw0rd!`, client)).status).toBe(401);
      }
      expect((await signInAttempt(proxied, email, GOOD_PASSWORD, client)).status).toBe(429);
      // Another client behind the same proxy signs in: the proxy's own address is not what counts.
      const accepted = await signInAttempt(proxied, email, GOOD_PASSWORD, colleague);
      expect(accepted.status).toBeGreaterThanOrEqual(300);
      expect(accepted.status).toBeLessThan(400);
    } finally {
      await proxied.close();
      await database.drop();
    }
  });

  it("answers the token endpoint's CORS preflight for the app's origin only (issue 23)", async () => {
    const preflight = (origin: string) =>
      fetch(`${server.issuer}/protocol/openid-connect/token`, {
        method: "OPTIONS",
        headers: { origin, "access-control-request-method": "POST" },
      });
    const own = await preflight(new URL(server.base).origin);
    expect(own.headers.get("access-control-allow-origin")).toBe(new URL(server.base).origin);
    const evil = await preflight("https://evil.example");
    expect(evil.status).toBe(403);
    expect(evil.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("stores refresh tokens by their hash only, as migration 0008 converts older rows (issue 23)", async () => {
    const { tokens } = await signInForTokens(new Browser(), server, "demo@polyforge.local", DEMO_PASSWORD);
    const db = server.app.database.db;
    const rows = await db.select().from(oidcPayloads).where(eq(oidcPayloads.model, "RefreshToken"));
    expect(rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows)).not.toContain(tokens.refresh_token);
    expect(rows.map((row) => row.id)).toContain(tokenHash(tokens.refresh_token));
    // The stored token still refreshes (the value is looked up by its hash).
    const refreshed = await tokenRequest(server, { grant_type: "refresh_token", refresh_token: tokens.refresh_token });
    expect(refreshed.status).toBe(200);
    // The migration's SQL computes the same hash.
    const value = "eyJhbGciOiJIUzI1NiJ9.eyJ0eXAiOiJSZWZyZXNoIn0.c2lnbmF0dXJl/+?";
    const migrated = await db.execute(
      sql`SELECT rtrim(translate(encode(sha256(convert_to(${value}, 'UTF8')), 'base64'), '+/', '-_'), '=') AS id`,
    );
    const first = (migrated as unknown as { rows: Array<{ id: string }> }).rows[0];
    expect(first?.id).toBe(tokenHash(value));
  });

  it("limits failed sign-ins per address whatever the emails, and sign-ups per address (issue 23)", async () => {
    const database = await createTestDatabase(kind);
    const proxied = await startServer(database.target, undefined, {
      TRUST_PROXY: "loopback",
      POLYFORGE_SIGN_UPS_PER_ADDRESS: "3",
      POLYFORGE_SIGN_IN_FAILURES_PER_ADDRESS: "12",
    });
    try {
      // One password tried on many emails from one address.
      const sprayer = "198.51.100.30";
      for (let i = 0; i < 12; i++) {
        const attempt = await signInAttempt(proxied, `victim-${i}@example.org`, "Spring-2026!", sprayer);
        expect(attempt.status).toBe(401);
      }
      const limited = await signInAttempt(proxied, "victim-12@example.org", "Spring-2026!", sprayer);
      expect(limited.status).toBe(429);
      // Another address signs in.
      const other = await signInAttempt(proxied, "demo@polyforge.local", DEMO_PASSWORD, "198.51.100.31");
      expect(other.status).toBeGreaterThanOrEqual(300);
      expect(other.status).toBeLessThan(400);

      // Sign-ups: three accounts from one address, then the fourth waits.
      const signUpFrom = async (address: string, email: string) => {
        const browser = new Browser();
        const form = formOf(await openSignUp(browser, proxied));
        return browser.request(new URL(form.action, proxied.base).toString(), {
          method: "POST",
          headers: { "x-forwarded-for": address },
          body: new URLSearchParams({ csrf: form.csrf, ...SIGN_UP_DEFAULTS, email }),
        });
      };
      const farm = "198.51.100.40";
      for (let i = 0; i < 3; i++) expect((await signUpFrom(farm, `farm-${i}@example.org`)).status).toBe(303);
      const throttled = await signUpFrom(farm, "farm-3@example.org");
      expect(throttled.status).toBe(429);
      expect(await throttled.text()).toContain("Too many accounts were opened from your address");
      expect((await signUpFrom("198.51.100.41", "elsewhere@example.org")).status).toBe(303);
    } finally {
      await proxied.close();
      await database.drop();
    }
  }, 180_000);

  it("signs in with the new password after a change through the API, not with the old one", async () => {
    const email = `changer-${randomUUID().slice(0, 8)}@example.org`;
    await signUp(new Browser(), server, { email });
    const { tokens } = await signInForTokens(new Browser(), server, email, GOOD_PASSWORD);
    const newPassword = "Brand-New-Passw0rd?";
    const change = await fetch(`${server.base}/api/v2/users/password`, {
      method: "PUT",
      headers: { authorization: `Bearer ${tokens.access_token}`, "content-type": "application/json" },
      body: JSON.stringify({
        current_password: GOOD_PASSWORD,
        new_password: newPassword,
        confirm_new_password: newPassword,
      }),
    });
    expect(change.status).toBe(204);

    expect((await signIn(new Browser(), server, email, newPassword)).get("code")).toBeTruthy();
    const browser = new Browser();
    const page = await openSignIn(browser, server);
    const old = await browser.post(new URL(page.action, server.base).toString(), {
      csrf: page.csrf,
      email,
      password: GOOD_PASSWORD,
    });
    expect(old.status).toBe(401);
    expect(await old.text()).toContain("Invalid email or password.");
  });

  it("revokes every session's refresh token when the password changes (issue 23)", async () => {
    const email = `revoked-${randomUUID().slice(0, 8)}@example.org`;
    await signUp(new Browser(), server, { email });
    const laptop = (await signInForTokens(new Browser(), server, email, GOOD_PASSWORD)).tokens;
    const phone = (await signInForTokens(new Browser(), server, email, GOOD_PASSWORD)).tokens;
    const newPassword = "Another-New-Passw0rd?";
    const change = await fetch(`${server.base}/api/v2/users/password`, {
      method: "PUT",
      headers: { authorization: `Bearer ${laptop.access_token}`, "content-type": "application/json" },
      body: JSON.stringify({
        current_password: GOOD_PASSWORD,
        new_password: newPassword,
        confirm_new_password: newPassword,
      }),
    });
    expect(change.status).toBe(204);
    for (const tokens of [phone, laptop]) {
      const refresh = await tokenRequest(server, { grant_type: "refresh_token", refresh_token: tokens.refresh_token });
      expect(refresh.status).toBe(400);
      expect(refresh.body.error).toBe("invalid_grant");
    }
    // Somebody else's sessions are untouched.
    const other = (await signInForTokens(new Browser(), server, "demo@polyforge.local", DEMO_PASSWORD)).tokens;
    const stillValid = await tokenRequest(server, { grant_type: "refresh_token", refresh_token: other.refresh_token });
    expect(stillValid.status).toBe(200);
  });

  describe("remote support", () => {
    /** A signed-up user, and their tokens from an ordinary sign-in. */
    async function newUser(prefix: string) {
      const email = `${prefix}-${randomUUID().slice(0, 8)}@example.org`;
      await signUp(new Browser(), server, { email });
      const { tokens } = await signInForTokens(new Browser(), server, email, GOOD_PASSWORD);
      return { email, tokens };
    }

    async function allowRemoteSupport(accessToken: string) {
      const response = await fetch(`${server.base}/api/v2/users/account`, {
        method: "PUT",
        headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json" },
        body: JSON.stringify({ first_name: "Ada", last_name: "Lovelace", allow_impersonation: true }),
      });
      expect(response.status).toBe(200);
    }

    /** Staff open the support page from the sign-in page and post it. */
    async function supportSignIn(browser: Browser, customerEmail: string, email: string, o: AuthorizeOptions = {}) {
      const signInPage = await openSignIn(browser, server, o);
      const href = /<a href="([^"]+\/support)">Remote support access/.exec(signInPage.html)?.[1];
      const page = await browser.get(new URL(href!, server.base).toString());
      expect(page.status).toBe(200);
      const form = formOf(await page.text());
      return browser.post(new URL(form.action, server.base).toString(), {
        csrf: form.csrf,
        customer_email: customerEmail,
        email,
        password: GOOD_PASSWORD,
      });
    }

    it("lets support staff act as a user who enabled it, naming them in every token", async () => {
      const customer = await newUser("customer");
      await allowRemoteSupport(customer.tokens.access_token);
      const staff = await newUser("staff");
      await server.app.database.db
        .update(users)
        .set({ roles: ["user", "support"] })
        .where(eq(users.email, staff.email));
      const [staffRow] = await server.app.database.db.select().from(users).where(eq(users.email, staff.email));

      const browser = new Browser();
      const redirectUri = `${server.base}/`;
      const proof = pkce();
      const posted = await supportSignIn(browser, customer.email.toUpperCase(), staff.email, {
        redirectUri,
        pkce: proof,
      });
      expect(posted.status).toBe(303);
      const { appLocation } = await browser.follow(posted, server.base);
      const code = callbackParams(appLocation!).get("code")!;
      const { status, body } = await exchangeCode(server, code, proof.verifier, redirectUri);
      expect(status).toBe(200);

      const access = decodeJwt(body.access_token);
      expect(access).toMatchObject({
        sub: decodeJwt(customer.tokens.access_token).sub,
        email: customer.email,
        allow_impersonation: true,
        impersonator: { id: staffRow!.id, username: staff.email },
      });
      expect(decodeJwt(body.id_token).impersonator).toEqual({ id: staffRow!.id, username: staff.email });

      // The API serves the customer's account to the impersonating staff member.
      const account = await fetch(`${server.base}/api/v2/users/account`, {
        headers: { authorization: `Bearer ${body.access_token}` },
      });
      expect(account.status).toBe(200);
      expect(((await account.json()) as { email: string }).email).toBe(customer.email);

      // Refreshed tokens still say who is acting; the customer's own sign-ins never do.
      const refreshed = await tokenRequest(server, { grant_type: "refresh_token", refresh_token: body.refresh_token });
      expect(decodeJwt(refreshed.body.access_token).impersonator).toEqual({ id: staffRow!.id, username: staff.email });
      expect(decodeJwt(customer.tokens.access_token)).not.toHaveProperty("impersonator");
      const own = await signInForTokens(new Browser(), server, customer.email, GOOD_PASSWORD);
      expect(decodeJwt(own.tokens.access_token)).not.toHaveProperty("impersonator");
    });

    it("refuses users without the support role, and users who did not enable remote support", async () => {
      const customer = await newUser("customer");
      const staff = await newUser("staff");

      const notStaff = await supportSignIn(new Browser(), customer.email, staff.email);
      expect(notStaff.status).toBe(403);
      expect(await notStaff.text()).toContain("Only PolyForge support staff can act as another user.");

      await server.app.database.db
        .update(users)
        .set({ roles: ["user", "support"] })
        .where(eq(users.email, staff.email));
      for (const target of [customer.email, "nobody@example.org"]) {
        const refused = await supportSignIn(new Browser(), target, staff.email);
        expect(refused.status).toBe(403);
        expect(await refused.text()).toContain("No user with this email has enabled remote support.");
      }
    });
  });

  describe("sign-up page", () => {
    it("offers the fields of the spec, with the three organizations", async () => {
      const browser = new Browser();
      const html = await openSignUp(browser, server);
      for (const label of ["Email", "First name", "Last name", "Organization", "Password", "Confirm password"]) {
        expect(html).toContain(`>${label}</label>`);
      }
      expect(html).toContain('<option value="polyforge">PolyForge</option>');
      expect(html).toContain('<option value="cosmetics">Cosmetics company</option>');
      expect(html).toContain('<option value="other">Other</option>');
      expect(html).toContain('<button type="submit">Sign up</button>');
    });

    it("names each password rule that is broken, next to the password", async () => {
      const cases: Array<[string, string]> = [
        ["Sh0rt!", "Password must be at least 8 characters long"],
        [`Long-0${"x".repeat(123)}`, "Password can have at most 128 characters"],
        ["lowercase-0nly!", "Password must have at least one uppercase letter"],
        ["UPPERCASE-0NLY!", "Password must have at least one lowercase letter"],
        ["No-Digits-Here!", "Password must have at least one digit"],
        ["NoSpecial0nes", "Password must have at least one special character"],
        ["My-polyforge-1", 'Password cannot contain "PolyForge"'],
      ];
      expect(cases.map(([, m]) => m).sort()).toEqual(PASSWORD_RULES.map((r) => r.message).sort());
      const browser = new Browser();
      for (const [password, message] of cases) {
        const response = await postSignUp(browser, server, { password, confirm_password: password });
        expect(response.status).toBe(400);
        const html = await response.text();
        const passwordErrors = /<ul class="field-error" id="password-error">(.*?)<\/ul>/.exec(html)?.[1] ?? "";
        expect(passwordErrors).toContain(escapeForHtml(message));
        expect(html).not.toContain(password);
      }
    });

    it("re-renders what was typed (never the password) with each message by its field", async () => {
      const browser = new Browser();
      const response = await postSignUp(browser, server, {
        email: "Someone@Example.org",
        first_name: "",
        last_name: "Lovelace",
        organization: "cosmetics",
        password: GOOD_PASSWORD,
        confirm_password: "Something-Else1!",
      });
      expect(response.status).toBe(400);
      const html = await response.text();
      expect(html).toContain('value="Someone@Example.org"');
      expect(html).toContain('value="Lovelace"');
      expect(html).toContain('<option value="cosmetics" selected>');
      expect(html).not.toContain(GOOD_PASSWORD);
      expect(html).not.toContain("Something-Else1!");
      expect(/id="first_name-error"><li>You must enter a first name<\/li>/.test(html)).toBe(true);
      expect(/id="confirm_password-error"><li>Passwords do not match<\/li>/.test(html)).toBe(true);
      // The cursor starts in the first field to correct.
      expect(html).toMatch(/<input id="first_name"[^>]* autofocus>/);
      expect(html).not.toMatch(/<input id="email"[^>]* autofocus>/);

      const empty = await (
        await postSignUp(browser, server, { email: "", last_name: "", organization: "", password: "" })
      ).text();
      expect(/id="email-error"><li>Required field<\/li>/.test(empty)).toBe(true);
      expect(/id="organization-error"><li>Required field<\/li>/.test(empty)).toBe(true);
      expect(/id="last_name-error"><li>You must enter a last name<\/li>/.test(empty)).toBe(true);
    });

    it("creates the account, signs the user in and continues the authorization", async () => {
      const browser = new Browser();
      const email = `new-${randomUUID().slice(0, 8)}@example.org`;
      const { appLocation } = await signUp(browser, server, { email: email.toUpperCase(), organization: "cosmetics" });
      const code = callbackParams(appLocation).get("code");
      expect(code).toBeTruthy();

      const [row] = await server.app.database.db.select().from(users).where(eq(users.email, email));
      expect(row).toMatchObject({ firstName: "Ada", lastName: "Lovelace", organization: "cosmetics", roles: ["user"] });
      expect(row!.passwordHash).toMatch(/^scrypt\$/);

      // Signed in now: check-sso gets a code without a page.
      const silent = await browser.follow(
        await browser.get(authorizeUrl(server, { redirectUri: `${server.base}/`, prompt: "none" })),
        server.base,
      );
      expect(callbackParams(silent.appLocation!).get("code")).toBeTruthy();

      // And the email cannot be taken twice, whatever its case.
      const again = await postSignUp(new Browser(), server, { email: email.toUpperCase() });
      expect(again.status).toBe(409);
      expect(await again.text()).toContain("An account with this email already exists.");
    });
  });
});

async function openSignUp(browser: Browser, server: Server): Promise<string> {
  const signInPage = await openSignIn(browser, server);
  const href = /<a href="([^"]+\/signup)">Sign up<\/a>/.exec(signInPage.html)?.[1];
  const response = await browser.get(new URL(href!, server.base).toString());
  expect(response.status).toBe(200);
  return response.text();
}

const SIGN_UP_DEFAULTS = {
  email: "ada@example.org",
  first_name: "Ada",
  last_name: "Lovelace",
  organization: "other",
  password: GOOD_PASSWORD,
  confirm_password: GOOD_PASSWORD,
};

async function postSignUp(browser: Browser, server: Server, fields: Partial<typeof SIGN_UP_DEFAULTS>) {
  const form = formOf(await openSignUp(browser, server));
  return browser.post(new URL(form.action, server.base).toString(), {
    csrf: form.csrf,
    ...SIGN_UP_DEFAULTS,
    ...fields,
  });
}

async function signUp(browser: Browser, server: Server, fields: Partial<typeof SIGN_UP_DEFAULTS>) {
  const response = await postSignUp(browser, server, fields);
  expect(response.status).toBe(303);
  const { appLocation } = await browser.follow(response, server.base);
  if (!appLocation) throw new Error("sign-up did not return to the app");
  return { appLocation };
}

function escapeForHtml(text: string): string {
  return text.replaceAll('"', "&quot;");
}

describe.each(databaseKinds())("embedded identity across restarts on %s", (kind: DatabaseKind) => {
  async function restartableDatabase() {
    if (kind === "pglite") {
      const dataDir = mkdtempSync(join(tmpdir(), "polyforge-identity-pg-"));
      return { target: { kind: "pglite", dataDir } as DatabaseTarget, drop: async () => {} };
    }
    return createTestDatabase(kind);
  }

  it("keeps its signing key, cookie keys and sessions: a refresh token outlives a restart", async () => {
    const database = await restartableDatabase();
    const port = await freePort();
    const first = await startServer(database.target, port);
    const kid = (await jwks(first)).keys[0]!.kid;
    const browser = new Browser();
    const { tokens } = await signInForTokens(browser, first, "demo@polyforge.local", DEMO_PASSWORD);
    await first.close();

    const second = await startServer(database.target, port);
    try {
      expect((await jwks(second)).keys.map((k) => k.kid)).toEqual([kid]);
      // A token signed before the restart is still accepted by the API.
      const account = await fetch(`${second.base}/api/v2/users/account`, {
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
      expect(account.status).toBe(200);
      const refreshed = await tokenRequest(second, {
        grant_type: "refresh_token",
        refresh_token: tokens.refresh_token,
      });
      expect(refreshed.status).toBe(200);
      // The browser's session cookie is still good: check-sso answers with a code.
      const silent = await browser.follow(
        await browser.get(authorizeUrl(second, { redirectUri: `${second.base}/`, prompt: "none" })),
        second.base,
      );
      expect(callbackParams(silent.appLocation!).get("code")).toBeTruthy();
    } finally {
      await second.close();
      await database.drop();
    }
  });

  it("encrypts its keys at rest with POLYFORGE_SECRET_KEY, also keys stored before (issue 23)", async () => {
    const database = await restartableDatabase();
    const silentLogger = pino({ level: "silent" });
    const opened = await openDatabase(database.target, silentLogger);
    const config = { publicUrl: "http://localhost:18998", demoPassword: DEMO_PASSWORD };
    const secretKey = "a-long-secret-key-from-the-environment-0123";
    try {
      const plain = await createEmbeddedIdentity({ db: opened.db, config, logger: silentLogger });
      const storedPlain = await opened.db.select().from(identitySecrets);
      expect(JSON.stringify(storedPlain)).toContain('"d":');

      const encrypted = await createEmbeddedIdentity({
        db: opened.db,
        config: { ...config, secretKey },
        logger: silentLogger,
      });
      expect(encrypted.publicJwks).toEqual(plain.publicJwks);
      const stored = await opened.db.select().from(identitySecrets);
      expect(stored.map((row) => (row.value as { encrypted?: string }).encrypted)).toEqual([
        "aes-256-gcm",
        "aes-256-gcm",
      ]);
      expect(JSON.stringify(stored)).not.toContain('"d":');

      // The same key reads them again; no key or another key stops the start with a clear message.
      const again = await createEmbeddedIdentity({
        db: opened.db,
        config: { ...config, secretKey },
        logger: silentLogger,
      });
      expect(again.publicJwks).toEqual(plain.publicJwks);
      await expect(createEmbeddedIdentity({ db: opened.db, config, logger: silentLogger })).rejects.toThrow(
        /set POLYFORGE_SECRET_KEY/,
      );
      await expect(
        createEmbeddedIdentity({
          db: opened.db,
          config: { ...config, secretKey: `${secretKey}-other` },
          logger: silentLogger,
        }),
      ).rejects.toThrow(/not the key it was stored with/);
    } finally {
      await opened.close();
      await database.drop();
    }
  });

  it("creates the demo account once, printing its generated password on one line", async () => {
    const database = await restartableDatabase();
    const silentLogger = pino({ level: "silent" });
    const opened = await openDatabase(database.target, silentLogger);
    const stdout = vi.spyOn(process.stdout, "write");
    try {
      const config = { publicUrl: "http://localhost:18999", demoPassword: undefined };
      await createEmbeddedIdentity({ db: opened.db, config, logger: silentLogger });
      const printed = stdout.mock.calls.map(([chunk]) => String(chunk)).filter((l) => l.startsWith("Demo account:"));
      expect(printed).toHaveLength(1);
      const line = /^Demo account: demo@polyforge\.local \/ (\S+)\n$/.exec(printed[0]!);
      expect(line).not.toBeNull();
      const [demo] = await opened.db.select().from(users).where(eq(users.email, "demo@polyforge.local"));
      expect(demo).toMatchObject({ firstName: "Demo", lastName: "User", organization: "polyforge" });
      const hashBefore = demo!.passwordHash;

      stdout.mockClear();
      await createEmbeddedIdentity({
        db: opened.db,
        config: { ...config, demoPassword: DEMO_PASSWORD },
        logger: silentLogger,
      });
      expect(stdout.mock.calls.some(([chunk]) => String(chunk).startsWith("Demo account:"))).toBe(false);
      const rows = await opened.db.select().from(users).where(eq(users.email, "demo@polyforge.local"));
      expect(rows).toHaveLength(1);
      expect(rows[0]!.passwordHash).toBe(hashBefore);

      expect(passwordProblems(line![1]!)).toEqual([]);
      expect(await verifyPassword(line![1]!, hashBefore!)).toBe(true);
    } finally {
      stdout.mockRestore();
      await opened.close();
      await database.drop();
    }
  });
});
