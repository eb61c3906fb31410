import { normalizeOrganization, type Organization } from "@polyforge/contracts/organizations";

/** The signed-in user as the access token describes them (SPEC §3 identity claims). */
export interface Identity {
  subject: string;
  email: string;
  givenName: string;
  familyName: string;
  fullName: string;
  organization: Organization;
  roles: string[];
  allowImpersonation: boolean;
  /** Set during an impersonation session: staff are acting as this user. */
  impersonated: boolean;
  /** Set for federated (SSO) users, who cannot edit their names or password. */
  identityProvider: string | null;
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

export function identityFromClaims(claims: Record<string, unknown>): Identity {
  const realmAccess = claims.realm_access as { roles?: unknown } | undefined;
  const roles = Array.isArray(realmAccess?.roles) ? realmAccess.roles.filter((r) => typeof r === "string") : [];
  const identityProvider = text(claims.identity_provider);
  return {
    subject: text(claims.sub),
    email: text(claims.email),
    givenName: text(claims.given_name),
    familyName: text(claims.family_name),
    fullName: text(claims.name),
    organization: normalizeOrganization(claims.organization),
    roles,
    allowImpersonation: claims.allow_impersonation === true,
    impersonated: claims.impersonator !== undefined && claims.impersonator !== null && claims.impersonator !== "",
    identityProvider: identityProvider === "" ? null : identityProvider,
  };
}

/** Up to two letters for the avatar: given and family name, else the email's first letter. */
export function initials(identity: Pick<Identity, "givenName" | "familyName" | "email">): string {
  const letters = `${identity.givenName.charAt(0)}${identity.familyName.charAt(0)}`;
  return (letters || identity.email.charAt(0)).toUpperCase();
}
