import type { DisplayGroup } from "@polyforge/contracts/system-executions";

/** The colour of each status display group (SPEC §4), one for every badge and tag of a status. */
export const STATUS_GROUP_COLORS: Record<DisplayGroup, string> = {
  "not-submitted": "gray",
  "waiting-for-resources": "yellow",
  processing: "blue",
  running: "cyan",
  completed: "green",
  error: "red",
  cancelled: "orange",
};
