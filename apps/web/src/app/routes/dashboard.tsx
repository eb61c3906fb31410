import { createRoute } from "@tanstack/react-router";
import { DashboardPage } from "../../features/dashboard/DashboardPage";
import { rootRoute } from "./root";

/** Home. Each data-owning feature adds its summary card here. */
function Dashboard() {
  return <DashboardPage cards={null} />;
}

export const dashboardRoute = createRoute({ getParentRoute: () => rootRoute, path: "/", component: Dashboard });
