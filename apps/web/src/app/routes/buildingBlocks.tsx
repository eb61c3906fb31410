import { createRoute } from "@tanstack/react-router";
import { BuildingBlocksCatalogue } from "./lazyPages";
import { rootRoute } from "./root";
import { buildingBlocksSearchSchema } from "./searchSchemas";

function BuildingBlocks() {
  const search = buildingBlocksRoute.useSearch();
  const navigate = buildingBlocksRoute.useNavigate();
  return <BuildingBlocksCatalogue search={search} onSearchChange={(next) => void navigate({ search: next })} />;
}

export const buildingBlocksRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/building-blocks",
  validateSearch: buildingBlocksSearchSchema,
  component: BuildingBlocks,
});
