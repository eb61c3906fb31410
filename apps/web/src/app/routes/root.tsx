import { createRootRouteWithContext } from "@tanstack/react-router";
import { AppLayout } from "../layout/AppLayout";
import { NotFoundPage } from "../layout/NotFoundPage";
import type { RouterContext } from "../routerContext";

export const rootRoute = createRootRouteWithContext<RouterContext>()({
  component: AppLayout,
  notFoundComponent: NotFoundPage,
});
