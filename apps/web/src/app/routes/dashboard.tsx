import { createRoute } from "@tanstack/react-router";
import { BlocksSummaryCard, blocksSummaryQuery } from "../../features/building-blocks/BlocksSummaryCard";
import { DashboardPage } from "../../features/dashboard/DashboardPage";
import {
  MoleculesSummaryCard,
  SystemsSummaryCard,
  systemsSummaryQuery,
} from "../../features/systems/SystemsSummaryCards";
import { rootRoute } from "./root";

/** Home. Each data-owning feature adds its summary card here. */
function Dashboard() {
  return (
    <DashboardPage
      cards={
        <>
          <BlocksSummaryCard />
          <MoleculesSummaryCard />
          <SystemsSummaryCard />
        </>
      }
    />
  );
}

export const dashboardRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/",
  component: Dashboard,
  // The three cards' lists, asked for together as soon as the route is known (at start-up before
  // React renders, main.tsx); not awaited: the page shows at once and each card fills in.
  loader: ({ context: { queryClient } }) => {
    void Promise.all([
      queryClient.prefetchQuery(blocksSummaryQuery),
      queryClient.prefetchQuery(systemsSummaryQuery("molecule")),
      queryClient.prefetchQuery(systemsSummaryQuery("system")),
    ]);
  },
});
