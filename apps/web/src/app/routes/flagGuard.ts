import type { FlagName } from "@polyforge/contracts/flags";
import { redirect } from "@tanstack/react-router";
import type { RouterContext } from "../routerContext";

/** beforeLoad for a route that exists only while its flag is on; otherwise it redirects home. */
export function requireFlag(flag: FlagName) {
  return ({ context }: { context: RouterContext }) => {
    if (!context.flags.isOn(flag)) throw redirect({ to: "/", replace: true });
  };
}
