import type { QueryClient } from "@tanstack/react-query";
import { toast } from "sonner";
import { freshAccessToken } from "../auth/session";
import { setNotificationsConnected } from "./connectionState";
import { startNotificationsSocket } from "./notificationsSocket";

/** Every cached systems query starts with this key, so one notification refreshes them all. */
export const SYSTEMS_QUERY_KEY = ["systems"] as const;

/** Connects the notifications socket to the query cache, and says at once what happened to a run
 * (a notice: taken back after its server stopped, issue 23). Returns a function that stops it. */
export function startLiveUpdates(queryClient: QueryClient): () => void {
  return startNotificationsSocket({
    getToken: freshAccessToken,
    onNotification: (_type, message) => {
      void queryClient.invalidateQueries({ queryKey: SYSTEMS_QUERY_KEY });
      if (typeof message.notice === "string" && message.notice) toast.warning(message.notice, { duration: 10_000 });
    },
    onConnectedChange: setNotificationsConnected,
  });
}
