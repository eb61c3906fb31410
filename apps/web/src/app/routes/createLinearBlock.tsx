import { createRoute } from "@tanstack/react-router";
import { CreateBlockPage } from "./lazyPages";
import { rootRoute } from "./root";

export const createLinearBlockRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/building-blocks/create/linear",
  component: () => <CreateBlockPage type="linear" />,
});
