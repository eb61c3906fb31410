/**
 * A signed-in keycloak-js client for component tests (the identity provider is outside the app):
 * `vi.mock("keycloak-js", () => import("../../test/fakeKeycloak"))`, then `await signIn(...)`.
 */
export default class FakeKeycloak {
  token = "test-access-token";
  tokenParsed = {};
  async init() {
    return true;
  }
  async updateToken() {
    return false;
  }
  async login() {}
  async logout() {}
}
