import Keycloak from "keycloak-js";
import type { IdentityConfig } from "../config/appConfig";

/** Seconds a token must still be valid for before a call; shorter-lived ones are refreshed (SPEC §9). */
const MIN_TOKEN_VALIDITY_SECONDS = 30;

let keycloak: Keycloak | null = null;
const refreshListeners = new Set<() => void>();

/**
 * Starts the sign-in client (ARCHITECTURE §4). Resolves with the signed-in client, or sends the browser to
 * the provider's sign-in page (which also offers sign-up) and never resolves.
 */
export async function signIn(config: IdentityConfig): Promise<Keycloak> {
  const client = new Keycloak(config);
  const authenticated = await client.init({
    onLoad: "check-sso",
    pkceMethod: "S256",
    silentCheckSsoRedirectUri: `${window.location.origin}/silent-check-sso.html`,
    // Keycloak's session-status iframe is Keycloak-specific; other providers are checked silently instead.
    checkLoginIframe: "url" in config,
  });
  if (!authenticated) {
    await client.login();
    return new Promise<never>(() => {});
  }
  keycloak = client;
  client.onAuthRefreshSuccess = () => {
    for (const listener of refreshListeners) listener();
  };
  return client;
}

/** The signed-in user's access-token claims; a new object after each refresh. */
export function sessionClaims(): Record<string, unknown> | undefined {
  return keycloak?.tokenParsed;
}

/** Calls `listener` whenever the tokens are refreshed (so the claims may have changed). */
export function subscribeToSession(listener: () => void): () => void {
  refreshListeners.add(listener);
  return () => refreshListeners.delete(listener);
}

/** Refreshes the tokens now, e.g. after the user renamed themselves, so the claims show the new values. */
export async function renewTokens(): Promise<void> {
  try {
    await keycloak?.updateToken(-1);
  } catch {
    // The next call's freshAccessToken() deals with a session that has ended.
  }
}

/** An access token valid for at least 30 s. A failed refresh means the session is over: sign in again. */
export async function freshAccessToken(): Promise<string> {
  if (!keycloak) throw new Error("Not signed in");
  try {
    await keycloak.updateToken(MIN_TOKEN_VALIDITY_SECONDS);
  } catch {
    await keycloak.login();
    return new Promise<never>(() => {});
  }
  if (!keycloak.token) throw new Error("Not signed in");
  return keycloak.token;
}

/** Ends the session at the provider and comes back to the app's start page. Logout errors are swallowed. */
export async function signOut(): Promise<void> {
  try {
    await keycloak?.logout({ redirectUri: window.location.origin });
  } catch {
    // SPEC §8: a failed logout is not shown to the user.
  }
}
