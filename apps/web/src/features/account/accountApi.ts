import type { UserAccount } from "@polyforge/contracts/users";
import { api } from "../../lib/api/client";
import { ProductError } from "../../lib/api/productError";
import type { Identity } from "../../lib/auth/identity";

export const ACCOUNT_QUERY_KEY = ["account"] as const;

// Type aliases (not interfaces) so the form library accepts them as value records.
export type AccountUpdate = {
  first_name: string;
  last_name: string;
  allow_impersonation: boolean;
};

export type PasswordChange = {
  new_password: string;
  confirm_new_password: string;
};

/** The stored account; until the server offers GET /users/account (404) the token's claims stand in. */
export async function fetchAccount(identity: Identity): Promise<UserAccount> {
  try {
    return await api.get<UserAccount>("/users/account");
  } catch (error) {
    if (!(error instanceof ProductError && error.status === 404)) throw error;
    return {
      id: identity.subject,
      email: identity.email,
      first_name: identity.givenName,
      last_name: identity.familyName,
      organization: identity.organization,
      allow_impersonation: identity.allowImpersonation,
      identity_provider: identity.identityProvider,
    };
  }
}

export const updateAccount = (body: AccountUpdate) => api.put<unknown>("/users/account", body);
export const changePassword = (body: PasswordChange) => api.put<unknown>("/users/password", body);
