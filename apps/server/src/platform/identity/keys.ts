import { generateKeyPairSync, randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { calculateJwkThumbprint, type JSONWebKeySet, type JWK } from "jose";
import type { Db } from "../db/database";
import { identitySecrets } from "./schema";

const SIGNING_KEY = "signing_key";
const COOKIE_KEYS = "cookie_keys";

export interface IdentityKeys {
  /** The RS256 private key tokens are signed with (a JWK with kid, alg and use). */
  signingKey: JWK;
  /** The public half, published at the JWKS endpoint and used by the API to verify tokens. */
  publicJwks: JSONWebKeySet;
  /** Keys the provider signs its cookies with. */
  cookieKeys: string[];
}

/** Loads the provider's keys, generating and storing them on the very first start. */
export async function loadOrCreateKeys(db: Db): Promise<IdentityKeys> {
  const signingKey = await loadOrCreate(db, SIGNING_KEY, generateSigningKey);
  const cookieKeys = await loadOrCreate(db, COOKIE_KEYS, async () => [randomBytes(32).toString("base64url")]);
  return { signingKey, publicJwks: { keys: [publicHalf(signingKey)] }, cookieKeys };
}

/** Two servers starting at once on one database both generate; the first insert wins and both
 * then read the winner, so they agree on the keys. */
async function loadOrCreate<T>(db: Db, name: string, generate: () => Promise<T>): Promise<T> {
  const existing = await db.select().from(identitySecrets).where(eq(identitySecrets.name, name));
  if (existing[0]) return existing[0].value as T;
  await db
    .insert(identitySecrets)
    .values({ name, value: await generate() })
    .onConflictDoNothing();
  const [stored] = await db.select().from(identitySecrets).where(eq(identitySecrets.name, name));
  return stored!.value as T;
}

async function generateSigningKey(): Promise<JWK> {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const jwk = privateKey.export({ format: "jwk" }) as JWK;
  return { ...jwk, kid: await calculateJwkThumbprint(jwk), alg: "RS256", use: "sig" };
}

function publicHalf(key: JWK): JWK {
  const { kty, n, e, kid, alg, use } = key;
  return { kty, n, e, kid, alg, use };
}
