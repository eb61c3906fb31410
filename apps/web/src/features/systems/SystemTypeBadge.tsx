import { Badge } from "@mantine/core";
import type { SystemType } from "@polyforge/contracts/enums";
import { useTranslation } from "react-i18next";

export function SystemTypeBadge({ type }: { type: SystemType }) {
  const { t } = useTranslation("systems");
  return (
    <Badge variant="outline" color="grape">
      {t(`types.${type}`)}
    </Badge>
  );
}
