import { useFeatureIsOn } from "@growthbook/growthbook-react";
import { Loader } from "@mantine/core";
import { FLAGS } from "@polyforge/contracts/flags";
import { createRoute } from "@tanstack/react-router";
import { Suspense, useCallback } from "react";
import { useTranslation } from "react-i18next";
import { ProjectMenu } from "../../features/projects/ProjectMenu";
import { MolecularSystemFlow, SystemDetailPage } from "./lazyPages";
import { rootRoute } from "./root";

/** Structure- and file-based systems show the add-molecular-system flow, resuming where they stand. */
function OtherOrigin({ systemId, onLoadFailed }: { systemId: string; onLoadFailed: () => void }) {
  const { t } = useTranslation();
  return (
    <Suspense fallback={<Loader aria-label={t("loading")} />}>
      <MolecularSystemFlow systemId={systemId} onLoadFailed={onLoadFailed} />
    </Suspense>
  );
}

function SystemDetail() {
  const { systemId } = systemDetailRoute.useParams();
  const navigate = systemDetailRoute.useNavigate();
  const leave = useCallback(() => void navigate({ to: "/systems", search: { type: "molecule" } }), [navigate]);
  const projects = useFeatureIsOn(FLAGS.MODELING_COMPUTE);
  return (
    <SystemDetailPage
      systemId={systemId}
      onLeave={leave}
      otherOrigin={(id) => <OtherOrigin systemId={id} onLoadFailed={leave} />}
      headerExtras={projects ? (system) => <ProjectMenu system={system} /> : undefined}
    />
  );
}

export const systemDetailRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/systems/$systemId",
  component: SystemDetail,
});
