import { createRoute } from "@tanstack/react-router";
import { useTranslation } from "react-i18next";
import { TitleOnlyPage } from "../../components/TitleOnlyPage";
import { rootRoute } from "./root";
import { systemsSearchSchema } from "./searchSchemas";

function Systems() {
  const { t } = useTranslation();
  return <TitleOnlyPage title={t("pages.systems")} />;
}

export const systemsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/systems",
  validateSearch: systemsSearchSchema,
  component: Systems,
});
