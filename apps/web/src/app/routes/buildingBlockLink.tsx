import { createRoute } from "@tanstack/react-router";
import { useTranslation } from "react-i18next";
import { TitleOnlyPage } from "../../components/TitleOnlyPage";
import { rootRoute } from "./root";

/** The link form used from the system summary: block id and type in the path. */
function BuildingBlockLink() {
  const { t } = useTranslation();
  return <TitleOnlyPage title={t("pages.buildingBlockDetail")} />;
}

export const buildingBlockLinkRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/building-blocks/$id/$type",
  component: BuildingBlockLink,
});
