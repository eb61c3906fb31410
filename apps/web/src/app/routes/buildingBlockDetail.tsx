import { createRoute } from "@tanstack/react-router";
import { BlockDetailPage } from "./lazyPages";
import { rootRoute } from "./root";
import { buildingBlockDetailSearchSchema } from "./searchSchemas";

function BuildingBlockDetail() {
  const { blockId } = buildingBlockDetailRoute.useParams();
  return <BlockDetailPage blockId={blockId} />;
}

export const buildingBlockDetailRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/building-blocks/$blockId",
  validateSearch: buildingBlockDetailSearchSchema,
  component: BuildingBlockDetail,
});
