import { createRoute } from "@tanstack/react-router";
import { SystemsCatalogue } from "./lazyPages";
import { rootRoute } from "./root";
import { systemsSearchSchema } from "./searchSchemas";

function Systems() {
  const { type } = systemsRoute.useSearch();
  const navigate = systemsRoute.useNavigate();
  return <SystemsCatalogue type={type} onTypeChange={(next) => void navigate({ search: { type: next } })} />;
}

export const systemsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/systems",
  validateSearch: systemsSearchSchema,
  component: Systems,
});
