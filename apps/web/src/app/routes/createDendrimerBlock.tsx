import { createRoute } from "@tanstack/react-router";
import { useTranslation } from "react-i18next";
import { TitleOnlyPage } from "../../components/TitleOnlyPage";
import { rootRoute } from "./root";

function CreateDendrimerBlock() {
  const { t } = useTranslation();
  return <TitleOnlyPage title={t("pages.createDendrimerBlock")} />;
}

export const createDendrimerBlockRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/building-blocks/create/dendrimer",
  component: CreateDendrimerBlock,
});
