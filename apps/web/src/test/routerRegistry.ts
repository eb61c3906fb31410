import { waitFor } from "@testing-library/react";

interface SettlingRouter {
  state: { status: string; isLoading: boolean };
}

/** Routers rendered by the current test. A route load still in flight when the test ends would
 * finish after jsdom is torn down (React then throws "window is not defined"), so each test waits
 * for its routers to be idle before the page is unmounted. */
const activeRouters = new Set<SettlingRouter>();

export function trackRouter(router: SettlingRouter): void {
  activeRouters.add(router);
}

export async function settleRouters(): Promise<void> {
  for (const router of activeRouters) {
    await waitFor(() => {
      if (router.state.status !== "idle" || router.state.isLoading) throw new Error("router still loading");
    });
  }
  activeRouters.clear();
}
