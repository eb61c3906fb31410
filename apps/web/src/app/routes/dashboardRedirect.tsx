import { createRoute, redirect } from "@tanstack/react-router";
import { rootRoute } from "./root";

/** /dashboard always goes to / (SPEC §2). */
export const dashboardRedirectRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/dashboard",
  beforeLoad: () => {
    throw redirect({ to: "/", replace: true });
  },
});
