import { useQuery } from "@tanstack/react-query";
import { systemQueryOptions } from "../../../lib/api/systems";
import { useSystemsPollInterval } from "../../../lib/notifications/connectionState";

/** One system, live through the notification socket (polled only while it is closed); a failure is
 * not retried: the page decides what a missing system means. */
export const useSystem = (id: string) =>
  useQuery({ ...systemQueryOptions(id), refetchInterval: useSystemsPollInterval(), retry: false });
