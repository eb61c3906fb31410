import { randomBytes } from "node:crypto";
import { normalizeOrganization } from "@polyforge/contracts/organizations";
import { passwordProblems, type SignUpInput } from "@polyforge/contracts/users";
import { eq, sql } from "drizzle-orm";
import type { Db } from "../db/database";
import { isUuid } from "../ids";
import { hashPassword, verifyPassword } from "./passwords";
import { type UserRow, users } from "./schema";

export const DEMO_EMAIL = "demo@polyforge.local";

/** The identity claims of ARCHITECTURE §4 / SPEC §3, as they go into tokens and userinfo. */
export type UserClaims = {
  sub: string;
  preferred_username: string;
  name: string;
  given_name: string;
  family_name: string;
  email: string;
  email_verified: boolean;
  organization: string;
  realm_access: { roles: string[] };
  allow_impersonation: boolean;
  identity_provider?: string;
};

export function userClaims(user: UserRow): UserClaims {
  return {
    sub: user.id,
    preferred_username: user.email,
    name: `${user.firstName} ${user.lastName}`.trim(),
    given_name: user.firstName,
    family_name: user.lastName,
    email: user.email,
    // Nobody's address is verified by mail here; say so rather than claim it.
    email_verified: false,
    organization: normalizeOrganization(user.organization),
    realm_access: { roles: user.roles },
    allow_impersonation: user.allowImpersonation,
    ...(user.identityProvider ? { identity_provider: user.identityProvider } : {}),
  };
}

export async function findUserById(db: Db, id: string): Promise<UserRow | undefined> {
  if (!isUuid(id)) return undefined;
  const [user] = await db.select().from(users).where(eq(users.id, id));
  return user;
}

export async function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  const [user] = await db.select().from(users).where(sql`lower(${users.email}) = ${email.trim().toLowerCase()}`);
  return user;
}

/** A hash of a random password, verified against when the email is unknown, so an unknown
 * address costs as much time as a wrong password and the answer time does not reveal accounts. */
let decoyHash: Promise<string> | undefined;

/** The user whose email and password these are, or undefined. */
export async function authenticate(db: Db, email: string, password: string): Promise<UserRow | undefined> {
  const user = await findUserByEmail(db, email);
  decoyHash ??= hashPassword(randomBytes(16).toString("base64url"));
  const matches = await verifyPassword(password, user?.passwordHash ?? (await decoyHash));
  return user?.passwordHash && matches ? user : undefined;
}

/** Creates a local account; undefined when the email is taken. */
export async function createUser(db: Db, input: SignUpInput): Promise<UserRow | undefined> {
  if (await findUserByEmail(db, input.email)) return undefined;
  const [created] = await db
    .insert(users)
    .values({
      email: input.email,
      firstName: input.first_name,
      lastName: input.last_name,
      organization: input.organization,
      passwordHash: await hashPassword(input.password),
    })
    .onConflictDoNothing()
    .returning();
  return created;
}

/** Creates the demo account on first start (ARCHITECTURE §4) and returns its password then; an
 * existing demo account is left alone (undefined). A configured password must obey the rules. */
export async function ensureDemoAccount(db: Db, configuredPassword: string | undefined): Promise<string | undefined> {
  if (configuredPassword !== undefined) {
    const problems = passwordProblems(configuredPassword);
    if (problems.length) throw new Error(`POLYFORGE_DEMO_PASSWORD is not acceptable: ${problems.join("; ")}`);
  }
  if (await findUserByEmail(db, DEMO_EMAIL)) return undefined;
  const password = configuredPassword ?? generatePassword();
  const created = await createUser(db, {
    email: DEMO_EMAIL,
    first_name: "Demo",
    last_name: "User",
    organization: "polyforge",
    password,
  });
  return created ? password : undefined;
}

/** A random password that satisfies every rule of SPEC §5. */
function generatePassword(): string {
  for (;;) {
    const candidate = `${randomBytes(12).toString("base64url")}-Aa1`;
    if (passwordProblems(candidate).length === 0) return candidate;
  }
}
