import { createRoute } from "@tanstack/react-router";
import { BlocksSummaryCard } from "../../features/building-blocks/BlocksSummaryCard";
import { DashboardPage } from "../../features/dashboard/DashboardPage";
import { rootRoute } from "./root";

/** Home. Each data-owning feature adds its summary card here. */
function Dashboard() {
  return <DashboardPage cards={<BlocksSummaryCard />} />;
}

export const dashboardRoute = createRoute({ getParentRoute: () => rootRoute, path: "/", component: Dashboard });
