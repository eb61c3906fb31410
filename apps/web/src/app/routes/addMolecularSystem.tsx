import { FLAGS } from "@polyforge/contracts/flags";
import { createRoute } from "@tanstack/react-router";
import { useTranslation } from "react-i18next";
import { TitleOnlyPage } from "../../components/TitleOnlyPage";
import { requireFlag } from "./flagGuard";
import { rootRoute } from "./root";
import { addMolecularSystemSearchSchema } from "./searchSchemas";

function AddMolecularSystem() {
  const { t } = useTranslation();
  return <TitleOnlyPage title={t("pages.addMolecularSystem")} />;
}

export const addMolecularSystemRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/add-molecular-system",
  validateSearch: addMolecularSystemSearchSchema,
  beforeLoad: requireFlag(FLAGS.ADD_MOLECULAR_SYSTEM),
  component: AddMolecularSystem,
});
