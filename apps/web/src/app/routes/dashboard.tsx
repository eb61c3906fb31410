import { createRoute } from "@tanstack/react-router";
import { BlocksSummaryCard } from "../../features/building-blocks/BlocksSummaryCard";
import { DashboardPage } from "../../features/dashboard/DashboardPage";
import { MoleculesSummaryCard, SystemsSummaryCard } from "../../features/systems/SystemsSummaryCards";
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

export const dashboardRoute = createRoute({ getParentRoute: () => rootRoute, path: "/", component: Dashboard });
