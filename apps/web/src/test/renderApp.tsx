import { GrowthBook } from "@growthbook/growthbook-react";
import type { FlagName } from "@polyforge/contracts/flags";
import { DEFAULT_JOB_LIMITS, type JobLimits } from "@polyforge/contracts/job-limits";
import type { QueryClient } from "@tanstack/react-query";
import { createMemoryHistory } from "@tanstack/react-router";
import { render } from "@testing-library/react";
import { App } from "../app/App";
import { createQueryClient } from "../app/providers/queryClient";
import { createAppRouter } from "../app/router";
import { type Identity, identityFromClaims } from "../lib/auth/identity";
import { appConfigQuery } from "../lib/config/appConfig";
import { trackRouter } from "./routerRegistry";
import { TEST_SESSION } from "./signedInFetch";

export const TEST_CLAIMS = {
  sub: "user-1",
  email: "ada@example.org",
  given_name: "Ada",
  family_name: "Lovelace",
  name: "Ada Lovelace",
  organization: "other",
  allow_impersonation: false,
};

/** A GrowthBook client evaluating a fixed feature file, as our server would serve it. */
export function growthbookWith(flagsOn: readonly FlagName[]): GrowthBook {
  const features = Object.fromEntries(flagsOn.map((flag) => [flag, { defaultValue: true }]));
  return new GrowthBook({}).initSync({ payload: { features } });
}

/** /config.json's answer in the cache, as main.tsx puts it there at startup. */
export function seedAppConfig(queryClient: QueryClient, jobLimits: JobLimits = DEFAULT_JOB_LIMITS) {
  queryClient.setQueryData(appConfigQuery.queryKey, { identity: TEST_SESSION, jobLimits });
}

/** Renders the whole app (providers, router, layout) at `path`, with the given flags on. */
export function renderApp(
  path: string,
  { flagsOn = [], identity = identityFromClaims(TEST_CLAIMS) }: { flagsOn?: FlagName[]; identity?: Identity } = {},
) {
  const queryClient = createQueryClient();
  seedAppConfig(queryClient);
  const growthbook = growthbookWith(flagsOn);
  const router = createAppRouter(
    { queryClient, flags: { isOn: (flag) => growthbook.isOn(flag) }, docsUrl: "https://docs.example.org" },
    createMemoryHistory({ initialEntries: [path] }),
  );
  trackRouter(router);
  const view = render(
    <App router={router} queryClient={queryClient} growthbook={growthbook} identity={identity} mantineEnv="test" />,
  );
  return { ...view, router, queryClient };
}
