import { MantineProvider } from "@mantine/core";
import { QueryClientProvider } from "@tanstack/react-query";
import { render } from "@testing-library/react";
import type { ReactNode } from "react";
import { createQueryClient } from "../app/providers/queryClient";
import { Toasts } from "../app/providers/Toasts";
import { type Identity, identityFromClaims } from "../lib/auth/identity";
import { IdentityContext } from "../lib/auth/useIdentity";
import { TEST_CLAIMS } from "./renderApp";

/** Renders one component with the app's providers (no router): Mantine, query cache, identity, toasts. */
export function renderWithProviders(ui: ReactNode, identity: Identity = identityFromClaims(TEST_CLAIMS)) {
  const queryClient = createQueryClient();
  return render(
    <MantineProvider env="test">
      <QueryClientProvider client={queryClient}>
        <IdentityContext.Provider value={identity}>
          {ui}
          <Toasts />
        </IdentityContext.Provider>
      </QueryClientProvider>
    </MantineProvider>,
  );
}
