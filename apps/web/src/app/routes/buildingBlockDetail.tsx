import { createRoute } from "@tanstack/react-router";
import { useTranslation } from "react-i18next";
import { TitleOnlyPage } from "../../components/TitleOnlyPage";
import { rootRoute } from "./root";
import { buildingBlockDetailSearchSchema } from "./searchSchemas";

function BuildingBlockDetail() {
  const { t } = useTranslation();
  return <TitleOnlyPage title={t("pages.buildingBlockDetail")} />;
}

export const buildingBlockDetailRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/building-blocks/$blockId",
  validateSearch: buildingBlockDetailSearchSchema,
  component: BuildingBlockDetail,
});
