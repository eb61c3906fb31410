import type { UserAccount } from "@polyforge/contracts/users";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";
import { ProductError } from "../../../lib/api/productError";
import type { Identity } from "../../../lib/auth/identity";

/** The one key of the caller's account; saving the account invalidates it. */
export const ACCOUNT_QUERY_KEY = ["account"] as const;

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

export const accountQueryOptions = (identity: Identity) =>
  queryOptions({ queryKey: ACCOUNT_QUERY_KEY, queryFn: () => fetchAccount(identity) });

/** The signed-in user's account (`identity`: lib/auth's useIdentity). */
export const useAccount = (identity: Identity) => useQuery(accountQueryOptions(identity));
