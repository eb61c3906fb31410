import { Badge, Loader } from "@mantine/core";
import { type ConversionStatus, fileBadge, STRUCTURE_BADGES } from "@polyforge/contracts/molecular-systems";
import { displayGroup } from "@polyforge/contracts/system-executions";

const COLORS = { running: "cyan", completed: "green", error: "red" } as Record<string, string>;

/** The badge text of a status, SPEC §4: the structure badges for a SMILES, the file badges for a file. */
export function statusBadgeText(origin: string, status: string, percent = 0): string | null {
  if (origin === "smiles") return STRUCTURE_BADGES[status as ConversionStatus] ?? null;
  return fileBadge(status, percent);
}

/** A status badge coloured by its display group; a running one spins. */
export function StatusBadge({ status, label }: { status: string; label: string }) {
  const group = displayGroup(status);
  return (
    <Badge
      color={COLORS[group] ?? "gray"}
      variant="light"
      size="lg"
      data-status={status}
      leftSection={group === "running" ? <Loader size={12} color="cyan" /> : undefined}
    >
      {label}
    </Badge>
  );
}
