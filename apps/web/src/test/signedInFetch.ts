import type { Mock } from "vitest";
import { signIn } from "../lib/auth/session";

/** How the web client reaches the identity provider in tests (keycloak-js itself is faked). */
export const TEST_SESSION = { oidcProvider: "http://localhost/auth/realms/polyforge", clientId: "polyforge-web" };

/** A response with a JSON body, as the API sends them. */
export function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status });
}

/** For the enclosing describe block: signed in once, and `fetchMock` is the global fetch, reset
 * before every test. */
export function signedInWithFetch(fetchMock: Mock<typeof fetch>): void {
  beforeAll(async () => {
    await signIn(TEST_SESSION);
  });
  beforeEach(() => {
    fetchMock.mockReset();
    vi.stubGlobal("fetch", fetchMock);
  });
  afterEach(() => vi.unstubAllGlobals());
}
