import { Anchor, Text } from "@mantine/core";
import { createRoute, Link } from "@tanstack/react-router";
import { useCallback } from "react";
import { useTranslation } from "react-i18next";
import { SystemDetailPage } from "./lazyPages";
import { rootRoute } from "./root";

/** Structure- and file-based systems are edited in the add-molecular-system flow. */
function OtherOriginLink({ systemId }: { systemId: string }) {
  const { t } = useTranslation();
  return (
    <Text>
      <Anchor renderRoot={(props) => <Link {...props} to="/add-molecular-system" search={{ systemId }} />}>
        {t("pages.addMolecularSystem")}
      </Anchor>
    </Text>
  );
}

function SystemDetail() {
  const { systemId } = systemDetailRoute.useParams();
  const navigate = systemDetailRoute.useNavigate();
  const leave = useCallback(() => void navigate({ to: "/systems", search: { type: "molecule" } }), [navigate]);
  return (
    <SystemDetailPage systemId={systemId} onLeave={leave} otherOrigin={(id) => <OtherOriginLink systemId={id} />} />
  );
}

export const systemDetailRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/systems/$systemId",
  component: SystemDetail,
});
