import { FLAGS } from "@polyforge/contracts/flags";
import { createRoute } from "@tanstack/react-router";
import { useTranslation } from "react-i18next";
import { TitleOnlyPage } from "../../components/TitleOnlyPage";
import { requireFlag } from "./flagGuard";
import { rootRoute } from "./root";

function ModelingCompute() {
  const { t } = useTranslation();
  return <TitleOnlyPage title={t("pages.projects")} />;
}

export const modelingComputeRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/modeling-compute",
  beforeLoad: requireFlag(FLAGS.MODELING_COMPUTE),
  component: ModelingCompute,
});
