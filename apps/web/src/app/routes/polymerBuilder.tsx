import { createRoute } from "@tanstack/react-router";
import { PolymerBuilderPage } from "./lazyPages";
import { rootRoute } from "./root";

export const polymerBuilderRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/polymer-builder",
  component: PolymerBuilderPage,
});
