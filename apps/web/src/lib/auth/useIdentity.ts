import { createContext, useContext } from "react";
import type { Identity } from "./identity";

/** The signed-in user, provided once sign-in has finished (app/providers). */
export const IdentityContext = createContext<Identity | null>(null);

export function useIdentity(): Identity {
  const identity = useContext(IdentityContext);
  if (!identity) throw new Error("useIdentity needs an IdentityContext provider");
  return identity;
}
