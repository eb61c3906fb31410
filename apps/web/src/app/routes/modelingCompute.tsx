import { FLAGS } from "@polyforge/contracts/flags";
import { createRoute } from "@tanstack/react-router";
import { useTranslation } from "react-i18next";
import { ProjectSystemsList } from "../../features/systems/ProjectSystemsList";
import { requireFlag } from "./flagGuard";
import { ProjectsPage } from "./lazyPages";
import { rootRoute } from "./root";

/** The projects summary, each project showing its systems from the systems feature. */
function ModelingCompute() {
  const { t } = useTranslation("projects");
  return (
    <ProjectsPage
      renderSystems={(project) => <ProjectSystemsList projectId={project.id} failedText={t("systems.loadFailed")} />}
    />
  );
}

export const modelingComputeRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/modeling-compute",
  beforeLoad: requireFlag(FLAGS.MODELING_COMPUTE),
  component: ModelingCompute,
});
