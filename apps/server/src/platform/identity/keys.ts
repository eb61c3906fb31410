import { createCipheriv, createDecipheriv, createHash, generateKeyPairSync, randomBytes } from "node:crypto";
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

/** Loads the provider's keys, generating and storing them on the very first start. With
 * `secretKey` (POLYFORGE_SECRET_KEY) they are stored encrypted (AES-256-GCM), and keys stored in
 * plain text before are encrypted on this start (issue 23). */
export async function loadOrCreateKeys(db: Db, secretKey?: string): Promise<IdentityKeys> {
  const signingKey = await loadOrCreate(db, SIGNING_KEY, generateSigningKey, secretKey);
  const cookieKeys = await loadOrCreate(
    db,
    COOKIE_KEYS,
    async () => [randomBytes(32).toString("base64url")],
    secretKey,
  );
  return { signingKey, publicJwks: { keys: [publicHalf(signingKey)] }, cookieKeys };
}

/** Two servers starting at once on one database both generate; the first insert wins and both
 * then read the winner, so they agree on the keys. */
async function loadOrCreate<T>(db: Db, name: string, generate: () => Promise<T>, secretKey?: string): Promise<T> {
  const existing = await db.select().from(identitySecrets).where(eq(identitySecrets.name, name));
  if (!existing[0]) {
    const value = await generate();
    await db
      .insert(identitySecrets)
      .values({ name, value: secretKey ? encrypt(value, secretKey) : value })
      .onConflictDoNothing();
  }
  const [stored] = await db.select().from(identitySecrets).where(eq(identitySecrets.name, name));
  if (isEncrypted(stored!.value)) return decrypt<T>(stored!.value, name, secretKey);
  if (secretKey) {
    await db
      .update(identitySecrets)
      .set({ value: encrypt(stored!.value, secretKey) })
      .where(eq(identitySecrets.name, name));
  }
  return stored!.value as T;
}

interface EncryptedValue {
  encrypted: "aes-256-gcm";
  iv: string;
  tag: string;
  data: string;
}

function isEncrypted(value: unknown): value is EncryptedValue {
  return typeof value === "object" && value !== null && (value as EncryptedValue).encrypted === "aes-256-gcm";
}

const cipherKey = (secretKey: string) => createHash("sha256").update(secretKey).digest();

function encrypt(value: unknown, secretKey: string): EncryptedValue {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", cipherKey(secretKey), iv);
  const data = Buffer.concat([cipher.update(JSON.stringify(value), "utf8"), cipher.final()]);
  return {
    encrypted: "aes-256-gcm",
    iv: iv.toString("base64url"),
    tag: cipher.getAuthTag().toString("base64url"),
    data: data.toString("base64url"),
  };
}

function decrypt<T>(value: EncryptedValue, name: string, secretKey: string | undefined): T {
  if (!secretKey) throw new Error(`The identity secret ${name} is encrypted: set POLYFORGE_SECRET_KEY to its key`);
  try {
    const decipher = createDecipheriv("aes-256-gcm", cipherKey(secretKey), Buffer.from(value.iv, "base64url"));
    decipher.setAuthTag(Buffer.from(value.tag, "base64url"));
    const text = Buffer.concat([decipher.update(Buffer.from(value.data, "base64url")), decipher.final()]);
    return JSON.parse(text.toString("utf8")) as T;
  } catch {
    throw new Error(
      `The identity secret ${name} cannot be decrypted: POLYFORGE_SECRET_KEY is not the key it was stored with`,
    );
  }
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
