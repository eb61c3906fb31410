import { createRoute } from "@tanstack/react-router";
import { useTranslation } from "react-i18next";
import { TitleOnlyPage } from "../../components/TitleOnlyPage";
import { rootRoute } from "./root";

function PolymerBuilder() {
  const { t } = useTranslation();
  return <TitleOnlyPage title={t("pages.polymerBuilder")} />;
}

export const polymerBuilderRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/polymer-builder",
  component: PolymerBuilder,
});
