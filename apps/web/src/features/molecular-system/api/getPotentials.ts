import { useQuery } from "@tanstack/react-query";
import { potentialsQueryOptions } from "../../../lib/api/potentials";
import { useSystemsPollInterval } from "../../../lib/notifications/connectionState";

/** A system's potentials with their live statuses. */
export const usePotentials = (systemId: string) =>
  // Live through the notification socket; polled only while it is closed (SPEC §4).
  useQuery({ ...potentialsQueryOptions(systemId), refetchInterval: useSystemsPollInterval() });
