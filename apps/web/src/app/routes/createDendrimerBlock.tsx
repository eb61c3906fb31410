import { createRoute } from "@tanstack/react-router";
import { CreateBlockPage } from "./lazyPages";
import { rootRoute } from "./root";

export const createDendrimerBlockRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/building-blocks/create/dendrimer",
  component: () => <CreateBlockPage type="dendrimer" />,
});
