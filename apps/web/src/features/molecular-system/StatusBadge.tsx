import { Badge, Loader } from "@mantine/core";
import { type ConversionStatus, fileBadge, STRUCTURE_BADGES } from "@polyforge/contracts/molecular-systems";
import { displayGroup } from "@polyforge/contracts/system-executions";
import { useTranslation } from "react-i18next";
import { STATUS_GROUP_COLORS } from "../../lib/formatting/statusColors";

/** The badge text of a status (SPEC §4): which statuses have one is the contracts' rule, the text
 * is the locale's ('structureBadges' for a SMILES, 'badges' for a file). */
export function useStatusBadgeText() {
  const { t } = useTranslation("molecularSystems");
  return (origin: string, status: string, percent = 0): string | null => {
    if (origin === "smiles")
      return STRUCTURE_BADGES[status as ConversionStatus] ? t(`structureBadges.${status}`) : null;
    return fileBadge(status, percent) === null ? null : t(`badges.${status}`, { percent });
  };
}

/** A status badge coloured by its display group; a running one spins. */
export function StatusBadge({ status, label }: { status: string; label: string }) {
  const group = displayGroup(status);
  return (
    <Badge
      color={STATUS_GROUP_COLORS[group]}
      variant="light"
      size="lg"
      data-status={status}
      leftSection={
        group === "running" || group === "processing" ? (
          <Loader size={12} color={STATUS_GROUP_COLORS[group]} />
        ) : undefined
      }
    >
      {label}
    </Badge>
  );
}
