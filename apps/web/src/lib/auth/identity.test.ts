import { identityFromClaims, initials } from "./identity";

describe("identityFromClaims", () => {
  it("reads the SPEC §3 claims", () => {
    const identity = identityFromClaims({
      sub: "u1",
      email: "ada@example.org",
      given_name: "Ada",
      family_name: "Lovelace",
      name: "Ada Lovelace",
      organization: "cosmetics",
      realm_access: { roles: ["user", 3] },
      allow_impersonation: true,
      identity_provider: "google",
    });
    expect(identity).toEqual({
      subject: "u1",
      email: "ada@example.org",
      givenName: "Ada",
      familyName: "Lovelace",
      fullName: "Ada Lovelace",
      organization: "cosmetics",
      roles: ["user"],
      allowImpersonation: true,
      impersonated: false,
      identityProvider: "google",
    });
  });

  it("treats unknown organizations as other, and flags impersonation", () => {
    const identity = identityFromClaims({ organization: "acme", impersonator: { id: "staff" } });
    expect(identity.organization).toBe("other");
    expect(identity.impersonated).toBe(true);
    expect(identity.identityProvider).toBeNull();
  });

  it("makes avatar initials from the names, else the email", () => {
    expect(initials({ givenName: "ada", familyName: "lovelace", email: "x@y" })).toBe("AL");
    expect(initials({ givenName: "", familyName: "", email: "zoe@example.org" })).toBe("Z");
  });
});
