import { createRoute } from "@tanstack/react-router";
import { useTranslation } from "react-i18next";
import { TitleOnlyPage } from "../../components/TitleOnlyPage";
import { rootRoute } from "./root";

function SystemDetail() {
  const { t } = useTranslation();
  return <TitleOnlyPage title={t("pages.systemDetail")} />;
}

export const systemDetailRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/systems/$systemId",
  component: SystemDetail,
});
