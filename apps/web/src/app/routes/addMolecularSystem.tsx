import { useFeatureIsOn } from "@growthbook/growthbook-react";
import { FLAGS } from "@polyforge/contracts/flags";
import { createRoute } from "@tanstack/react-router";
import { useCallback, useMemo, useRef } from "react";
import { ProjectSelect, useFileNewSystem } from "../../features/projects/ProjectSelect";
import { requireFlag } from "./flagGuard";
import { AddMolecularSystemPage } from "./lazyPages";
import { rootRoute } from "./root";
import { addMolecularSystemSearchSchema } from "./searchSchemas";

function AddMolecularSystem() {
  const { systemId } = addMolecularSystemRoute.useSearch();
  const navigate = addMolecularSystemRoute.useNavigate();
  // With projects on, the Details step can name a project; the system is filed there once created.
  const projects = useFeatureIsOn(FLAGS.MODELING_COMPUTE);
  const fileNewSystem = useFileNewSystem();
  const choice = useRef<{ projectId: string | null; name: string } | null>(null);
  const filing = useMemo(
    () =>
      projects
        ? {
            field: (props: { value: string | null; onChange: (value: string | null) => void }) => (
              <ProjectSelect {...props} />
            ),
            choose: (projectId: string | null, name: string) => {
              choice.current = { projectId, name };
            },
          }
        : undefined,
    [projects],
  );
  // The new system's id goes into the URL, so a reload (or a return later) resumes it.
  const created = useCallback(
    (id: string) => {
      const chosen = choice.current;
      choice.current = null;
      // A failure to file is said by a toast and does not undo the creation.
      if (chosen?.projectId) void fileNewSystem({ id, name: chosen.name }, chosen.projectId);
      void navigate({ search: { systemId: id } });
    },
    [navigate, fileNewSystem],
  );
  const leave = useCallback(() => void navigate({ to: "/systems", search: { type: "molecule" } }), [navigate]);
  // A fresh flow for each system (the sidebar entry opens a new one).
  return (
    <AddMolecularSystemPage
      key={systemId ?? "new"}
      systemId={systemId}
      onCreated={created}
      onLoadFailed={leave}
      filing={filing}
    />
  );
}

export const addMolecularSystemRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/add-molecular-system",
  validateSearch: addMolecularSystemSearchSchema,
  beforeLoad: requireFlag(FLAGS.ADD_MOLECULAR_SYSTEM),
  component: AddMolecularSystem,
});
