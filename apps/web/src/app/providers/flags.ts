import { GrowthBook } from "@growthbook/growthbook-react";
import type { Identity } from "../../lib/auth/identity";
import type { AppConfig } from "../../lib/config/appConfig";

/** How long the first page waits for flags before showing with everything gated off. */
const FLAGS_TIMEOUT_MS = 3000;

/**
 * GrowthBook client for the features served at {apiHost}/api/features/{clientKey} (our server by
 * default), evaluated with the user's email and organization (SPEC §2). The features are fetched
 * at once, while the user is signed in (they do not depend on who it is); `ready` resolves when they
 * have arrived or the timeout passed. The attributes are set once the user is known.
 */
export function loadFlags(config: AppConfig): { growthbook: GrowthBook; ready: Promise<unknown> } {
  const growthbook = new GrowthBook({
    apiHost: config.flags?.apiHost || window.location.origin,
    clientKey: config.flags?.clientKey,
  });
  const ready = config.flags?.clientKey ? growthbook.init({ timeout: FLAGS_TIMEOUT_MS }) : Promise.resolve();
  return { growthbook, ready };
}

/** Evaluates the flags for this user (SPEC §2: email and organization). */
export function flagsFor(growthbook: GrowthBook, identity: Identity): Promise<void> {
  return growthbook.setAttributes({ email: identity.email, organization: identity.organization });
}
