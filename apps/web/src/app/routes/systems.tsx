import { useFeatureIsOn } from "@growthbook/growthbook-react";
import { FLAGS } from "@polyforge/contracts/flags";
import { createRoute } from "@tanstack/react-router";
import { ProjectFilter } from "../../features/projects/ProjectFilter";
import { ProjectMenu } from "../../features/projects/ProjectMenu";
import { SystemsCatalogue } from "./lazyPages";
import { rootRoute } from "./root";
import { systemsSearchSchema } from "./searchSchemas";

function Systems() {
  const { type, project_id } = systemsRoute.useSearch();
  const navigate = systemsRoute.useNavigate();
  // Projects are the modeling-compute feature's: without the flag, neither filter nor filing.
  const projects = useFeatureIsOn(FLAGS.MODELING_COMPUTE);
  return (
    <SystemsCatalogue
      type={type}
      onTypeChange={(next) => void navigate({ search: (prev) => ({ ...prev, type: next }) })}
      projectId={projects ? project_id : undefined}
      projectFilter={
        projects ? (
          <ProjectFilter
            value={project_id}
            onChange={(next) => void navigate({ search: (prev) => ({ ...prev, project_id: next }) })}
          />
        ) : null
      }
      rowActions={projects ? (system) => <ProjectMenu system={system} compact /> : undefined}
    />
  );
}

export const systemsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/systems",
  validateSearch: systemsSearchSchema,
  component: Systems,
});
