import type { QueryClient } from "@tanstack/react-query";
import { toast } from "sonner";
import { SYSTEMS_QUERY_KEY } from "../api/systems";
import { freshAccessToken } from "../auth/session";
import { setNotificationsConnected } from "./connectionState";
import { startNotificationsSocket } from "./notificationsSocket";

/** Connects the notifications socket to the query cache (every notification is about a system's
 * status, so it marks the cached /systems queries stale), and says at once what happened to a run
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
