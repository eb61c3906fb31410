import { createRoute } from "@tanstack/react-router";
import { PolymerBuilderPage } from "../../features/polymer-builder/PolymerBuilderPage";
import { rootRoute } from "./root";

export const polymerBuilderRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/polymer-builder",
  component: PolymerBuilderPage,
});
