import { useFeatureIsOn } from "@growthbook/growthbook-react";
import { FLAGS } from "@polyforge/contracts/flags";
import { createRoute } from "@tanstack/react-router";
import { ProjectSelect, useFileNewSystem } from "../../features/projects/ProjectSelect";
import { PolymerBuilderPage } from "./lazyPages";
import { rootRoute } from "./root";

/** The builder; with projects on, its last step can file the new system under a project. */
function PolymerBuilder() {
  const projects = useFeatureIsOn(FLAGS.MODELING_COMPUTE);
  const fileNewSystem = useFileNewSystem();
  return (
    <PolymerBuilderPage
      filing={projects ? { field: (props) => <ProjectSelect {...props} />, file: fileNewSystem } : undefined}
    />
  );
}

export const polymerBuilderRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/polymer-builder",
  component: PolymerBuilder,
});
