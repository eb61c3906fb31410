import { type GrowthBook, GrowthBookProvider } from "@growthbook/growthbook-react";
import { MantineProvider } from "@mantine/core";
import { type QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { RouterProvider } from "@tanstack/react-router";
import type { Identity } from "../lib/auth/identity";
import { IdentityContext } from "../lib/auth/useIdentity";
import { Toasts } from "./providers/Toasts";
import { theme } from "./providers/theme";
import type { createAppRouter } from "./router";

export interface AppProps {
  router: ReturnType<typeof createAppRouter>;
  queryClient: QueryClient;
  growthbook: GrowthBook;
  identity: Identity;
  /** "test" turns off Mantine's transitions and portals, which jsdom cannot run. */
  mantineEnv?: "default" | "test";
}

export function App({ router, queryClient, growthbook, identity, mantineEnv = "default" }: AppProps) {
  return (
    <MantineProvider theme={theme} env={mantineEnv}>
      <GrowthBookProvider growthbook={growthbook}>
        <QueryClientProvider client={queryClient}>
          <IdentityContext.Provider value={identity}>
            <RouterProvider router={router} />
            <Toasts />
          </IdentityContext.Provider>
        </QueryClientProvider>
      </GrowthBookProvider>
    </MantineProvider>
  );
}
