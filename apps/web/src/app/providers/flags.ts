import { GrowthBook } from "@growthbook/growthbook-react";
import type { Identity } from "../../lib/auth/identity";
import type { AppConfig } from "../../lib/config/appConfig";

/** How long the first page waits for flags before showing with everything gated off. */
const FLAGS_TIMEOUT_MS = 3000;

/**
 * GrowthBook client for the features served at {apiHost}/api/features/{clientKey} (our server by
 * default), evaluated with the user's email and organization (SPEC §2).
 */
export async function loadFlags(config: AppConfig, identity: Identity): Promise<GrowthBook> {
  const growthbook = new GrowthBook({
    apiHost: config.flags?.apiHost || window.location.origin,
    clientKey: config.flags?.clientKey,
    attributes: { email: identity.email, organization: identity.organization },
  });
  if (config.flags?.clientKey) await growthbook.init({ timeout: FLAGS_TIMEOUT_MS });
  return growthbook;
}
