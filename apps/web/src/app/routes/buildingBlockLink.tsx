import { createRoute } from "@tanstack/react-router";
import { BlockDetailPage } from "./lazyPages";
import { rootRoute } from "./root";

/** The link form used from the system summary: block id and type in the path. */
function BuildingBlockLink() {
  const { id } = buildingBlockLinkRoute.useParams();
  return <BlockDetailPage blockId={id} />;
}

export const buildingBlockLinkRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/building-blocks/$id/$type",
  component: BuildingBlockLink,
});
