import { FLAGS } from "@polyforge/contracts/flags";
import { createRoute } from "@tanstack/react-router";
import { useCallback } from "react";
import { requireFlag } from "./flagGuard";
import { AddMolecularSystemPage } from "./lazyPages";
import { rootRoute } from "./root";
import { addMolecularSystemSearchSchema } from "./searchSchemas";

function AddMolecularSystem() {
  const { systemId } = addMolecularSystemRoute.useSearch();
  const navigate = addMolecularSystemRoute.useNavigate();
  // The new system's id goes into the URL, so a reload (or a return later) resumes it.
  const created = useCallback((id: string) => void navigate({ search: { systemId: id } }), [navigate]);
  const leave = useCallback(() => void navigate({ to: "/systems", search: { type: "molecule" } }), [navigate]);
  // A fresh flow for each system (the sidebar entry opens a new one).
  return (
    <AddMolecularSystemPage key={systemId ?? "new"} systemId={systemId} onCreated={created} onLoadFailed={leave} />
  );
}

export const addMolecularSystemRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/add-molecular-system",
  validateSearch: addMolecularSystemSearchSchema,
  beforeLoad: requireFlag(FLAGS.ADD_MOLECULAR_SYSTEM),
  component: AddMolecularSystem,
});
