import { createRoute } from "@tanstack/react-router";
import { AccountPage } from "./lazyPages";
import { rootRoute } from "./root";

export const accountRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/account",
  component: AccountPage,
});
