import { randomUUID } from "node:crypto";
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from "jose";
import type { IssuerKeys } from "../../src/platform/auth/tokens";

export interface SigningKey {
  kid: string;
  privateKey: Awaited<ReturnType<typeof generateKeyPair>>["privateKey"];
  publicJwk: JWK;
}

export async function newSigningKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair("RS256");
  const kid = randomUUID();
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" } };
}

/** A test identity provider: an issuer and a key pair whose public half the app trusts. */
export class TestIssuer {
  private constructor(
    readonly issuer: string,
    readonly key: SigningKey,
  ) {}

  static async create(issuer = "https://issuer.test/realms/polyforge"): Promise<TestIssuer> {
    return new TestIssuer(issuer, await newSigningKey());
  }

  keys(): IssuerKeys {
    return { issuer: this.issuer, publicJwks: { keys: [this.key.publicJwk] } };
  }

  /** An RS256 access token; `options` override the issuer, the key, or the lifetime. */
  async sign(
    claims: JWTPayload,
    options: { issuer?: string; key?: SigningKey; expiresIn?: string | number } = {},
  ): Promise<string> {
    const key = options.key ?? this.key;
    return new SignJWT(claims)
      .setProtectedHeader({ alg: "RS256", kid: key.kid, typ: "JWT" })
      .setIssuer(options.issuer ?? this.issuer)
      .setIssuedAt()
      .setExpirationTime(options.expiresIn ?? "5m")
      .sign(key.privateKey);
  }
}

export interface TestUserClaims extends JWTPayload {
  sub: string;
  email: string;
}

/** Claims of a fresh, unique user as the embedded provider would issue them. */
export function userClaims(overrides: Partial<TestUserClaims> = {}): TestUserClaims {
  const id = randomUUID();
  return {
    sub: id,
    email: `user-${id.slice(0, 8)}@example.org`,
    given_name: "Ada",
    family_name: "Lovelace",
    name: "Ada Lovelace",
    organization: "other",
    realm_access: { roles: ["user"] },
    allow_impersonation: false,
    ...overrides,
  };
}
