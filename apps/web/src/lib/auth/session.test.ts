import type { IdentityConfig } from "../config/appConfig";

/** Stand-in for the keycloak-js client (the identity provider boundary). */
const keycloakClient = {
  init: vi.fn(),
  login: vi.fn(),
  logout: vi.fn(),
  updateToken: vi.fn(),
  token: undefined as string | undefined,
  tokenParsed: undefined as Record<string, unknown> | undefined,
  onAuthRefreshSuccess: undefined as (() => void) | undefined,
};
const keycloakConstructor = vi.fn();
vi.mock("keycloak-js", () => ({
  default: class {
    constructor(config: unknown) {
      keycloakConstructor(config);
      // biome-ignore lint/correctness/noConstructorReturn: hand the test's stand-in to the caller
      return keycloakClient;
    }
  },
}));

const embeddedProvider: IdentityConfig = { oidcProvider: "http://localhost/auth/realms/polyforge", clientId: "web" };

async function loadSession() {
  vi.resetModules();
  return import("./session");
}

describe("session", () => {
  beforeEach(() => {
    vi.clearAllMocks();
    keycloakClient.login.mockResolvedValue(undefined);
    keycloakClient.token = "access-1";
  });

  it("checks for a session silently with PKCE S256", async () => {
    keycloakClient.init.mockResolvedValue(true);
    const { signIn } = await loadSession();
    await signIn(embeddedProvider);
    expect(keycloakConstructor).toHaveBeenCalledWith(embeddedProvider);
    expect(keycloakClient.init).toHaveBeenCalledWith({
      onLoad: "check-sso",
      pkceMethod: "S256",
      silentCheckSsoRedirectUri: `${window.location.origin}/silent-check-sso.html`,
      checkLoginIframe: false,
    });
  });

  it("sends a visitor without a session to the sign-in page", async () => {
    keycloakClient.init.mockResolvedValue(false);
    const { signIn } = await loadSession();
    void signIn(embeddedProvider);
    await vi.waitFor(() => expect(keycloakClient.login).toHaveBeenCalled());
  });

  it("refreshes tokens valid for less than 30 s before handing them out", async () => {
    keycloakClient.init.mockResolvedValue(true);
    keycloakClient.updateToken.mockImplementation(async () => {
      keycloakClient.token = "access-2";
      return true;
    });
    const { signIn, freshAccessToken } = await loadSession();
    await signIn(embeddedProvider);
    await expect(freshAccessToken()).resolves.toBe("access-2");
    expect(keycloakClient.updateToken).toHaveBeenCalledWith(30);
  });

  it("starts a new sign-in when the refresh fails", async () => {
    keycloakClient.init.mockResolvedValue(true);
    keycloakClient.updateToken.mockRejectedValue(new Error("refresh failed"));
    const { signIn, freshAccessToken } = await loadSession();
    await signIn(embeddedProvider);
    void freshAccessToken();
    await vi.waitFor(() => expect(keycloakClient.login).toHaveBeenCalled());
  });

  it("logs out back to the app's origin and swallows logout errors", async () => {
    keycloakClient.init.mockResolvedValue(true);
    keycloakClient.logout.mockRejectedValue(new Error("provider down"));
    const { signIn, signOut } = await loadSession();
    await signIn(embeddedProvider);
    await expect(signOut()).resolves.toBeUndefined();
    expect(keycloakClient.logout).toHaveBeenCalledWith({ redirectUri: window.location.origin });
  });

  it("tells subscribers when a refresh brings new claims", async () => {
    keycloakClient.init.mockResolvedValue(true);
    keycloakClient.tokenParsed = { given_name: "Ada" };
    keycloakClient.updateToken.mockImplementation(async () => {
      keycloakClient.tokenParsed = { given_name: "Augusta" };
      keycloakClient.onAuthRefreshSuccess?.();
      return true;
    });
    const { signIn, renewTokens, sessionClaims, subscribeToSession } = await loadSession();
    await signIn(embeddedProvider);
    const listener = vi.fn();
    subscribeToSession(listener);
    expect(sessionClaims()).toEqual({ given_name: "Ada" });
    await renewTokens();
    expect(keycloakClient.updateToken).toHaveBeenCalledWith(-1);
    expect(listener).toHaveBeenCalledTimes(1);
    expect(sessionClaims()).toEqual({ given_name: "Augusta" });
  });
});
