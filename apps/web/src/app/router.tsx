import { createRouter, type RouterHistory } from "@tanstack/react-router";
import type { RouterContext } from "./routerContext";
import { accountRoute } from "./routes/account";
import { addMolecularSystemRoute } from "./routes/addMolecularSystem";
import { buildingBlockDetailRoute } from "./routes/buildingBlockDetail";
import { buildingBlockLinkRoute } from "./routes/buildingBlockLink";
import { buildingBlocksRoute } from "./routes/buildingBlocks";
import { createDendrimerBlockRoute } from "./routes/createDendrimerBlock";
import { createLinearBlockRoute } from "./routes/createLinearBlock";
import { dashboardRoute } from "./routes/dashboard";
import { dashboardRedirectRoute } from "./routes/dashboardRedirect";
import { modelingComputeRoute } from "./routes/modelingCompute";
import { polymerBuilderRoute } from "./routes/polymerBuilder";
import { rootRoute } from "./routes/root";
import { systemDetailRoute } from "./routes/systemDetail";
import { systemsRoute } from "./routes/systems";

/** Every route of SPEC §2, one file each under routes/. */
const routeTree = rootRoute.addChildren([
  dashboardRoute,
  dashboardRedirectRoute,
  buildingBlocksRoute,
  buildingBlockDetailRoute,
  buildingBlockLinkRoute,
  createLinearBlockRoute,
  createDendrimerBlockRoute,
  systemsRoute,
  systemDetailRoute,
  polymerBuilderRoute,
  addMolecularSystemRoute,
  modelingComputeRoute,
  accountRoute,
]);

export function createAppRouter(context: RouterContext, history?: RouterHistory) {
  return createRouter({ routeTree, context, history, defaultPreload: "intent", scrollRestoration: true });
}

declare module "@tanstack/react-router" {
  interface Register {
    router: ReturnType<typeof createAppRouter>;
  }
}
