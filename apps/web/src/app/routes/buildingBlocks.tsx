import { createRoute } from "@tanstack/react-router";
import { useTranslation } from "react-i18next";
import { TitleOnlyPage } from "../../components/TitleOnlyPage";
import { rootRoute } from "./root";
import { buildingBlocksSearchSchema } from "./searchSchemas";

function BuildingBlocks() {
  const { t } = useTranslation();
  return <TitleOnlyPage title={t("pages.buildingBlocks")} />;
}

export const buildingBlocksRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/building-blocks",
  validateSearch: buildingBlocksSearchSchema,
  component: BuildingBlocks,
});
