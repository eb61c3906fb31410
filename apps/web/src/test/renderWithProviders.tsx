import { MantineProvider } from "@mantine/core";
import type { JobLimits } from "@polyforge/contracts/job-limits";
import { QueryClientProvider } from "@tanstack/react-query";
import { render } from "@testing-library/react";
import type { ReactNode } from "react";
import { createQueryClient } from "../app/providers/queryClient";
import { Toasts } from "../app/providers/Toasts";
import { type Identity, identityFromClaims } from "../lib/auth/identity";
import { IdentityContext } from "../lib/auth/useIdentity";
import { seedAppConfig, TEST_CLAIMS } from "./renderApp";

/** Renders one component with the app's providers (no router): Mantine, query cache with the app's
 * configuration (`jobLimits` for a deployment with other limits), identity, toasts. Answers the
 * render's result and that query client. */
export function renderWithProviders(
  ui: ReactNode,
  identity: Identity = identityFromClaims(TEST_CLAIMS),
  { jobLimits }: { jobLimits?: JobLimits } = {},
) {
  const queryClient = createQueryClient();
  seedAppConfig(queryClient, jobLimits);
  const view = render(
    <MantineProvider env="test">
      <QueryClientProvider client={queryClient}>
        <IdentityContext.Provider value={identity}>
          {ui}
          <Toasts />
        </IdentityContext.Provider>
      </QueryClientProvider>
    </MantineProvider>,
  );
  return { ...view, queryClient };
}
