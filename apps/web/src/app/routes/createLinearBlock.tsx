import { createRoute } from "@tanstack/react-router";
import { useTranslation } from "react-i18next";
import { TitleOnlyPage } from "../../components/TitleOnlyPage";
import { rootRoute } from "./root";

function CreateLinearBlock() {
  const { t } = useTranslation();
  return <TitleOnlyPage title={t("pages.createLinearBlock")} />;
}

export const createLinearBlockRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/building-blocks/create/linear",
  component: CreateLinearBlock,
});
