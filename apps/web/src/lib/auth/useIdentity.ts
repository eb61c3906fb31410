import { createContext, useContext, useMemo, useSyncExternalStore } from "react";
import { type Identity, identityFromClaims } from "./identity";
import { sessionClaims, subscribeToSession } from "./session";

/** The signed-in user, provided once sign-in has finished (app/providers). */
export const IdentityContext = createContext<Identity | null>(null);

export function useIdentity(): Identity {
  const identity = useContext(IdentityContext);
  if (!identity) throw new Error("useIdentity needs an IdentityContext provider");
  return identity;
}

/** The identity in the current access token, updated whenever the tokens are refreshed. */
export function useSessionIdentity(): Identity {
  const claims = useSyncExternalStore(subscribeToSession, sessionClaims);
  return useMemo(() => identityFromClaims(claims ?? {}), [claims]);
}
