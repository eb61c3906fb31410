import type { Organization } from "@polyforge/contracts/organizations";

/** The signed-in caller, set on `request.user` by the authentication hook. Identity facts (roles,
 * organization, impersonation) come from the verified token; profile fields from the users row. */
export interface AuthenticatedUser {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  organization: Organization;
  roles: string[];
  allowImpersonation: boolean;
  /** Who is acting as this user during an impersonation session, else null. */
  impersonator: string | null;
  /** Set for users of a federated provider (SSO): they cannot edit their names or password. */
  identityProvider: string | null;
}
