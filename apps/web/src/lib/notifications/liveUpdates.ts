import type { QueryClient } from "@tanstack/react-query";
import { toast } from "sonner";
import { freshAccessToken } from "../auth/session";
import { setNotificationsConnected } from "./connectionState";
import { startNotificationsSocket } from "./notificationsSocket";
import { applySystemNotification } from "./systemUpdates";

/** Connects the notifications socket to the query cache (every notification is about a system's
 * status: systemUpdates writes it into the cached systems), and says at once what happened to a run
 * (a notice: taken back after its server stopped). Returns a function that stops it. */
export function startLiveUpdates(queryClient: QueryClient): () => void {
  return startNotificationsSocket({
    getToken: freshAccessToken,
    onNotification: (_type, message) => {
      applySystemNotification(queryClient, message);
      if (typeof message.notice === "string" && message.notice) toast.warning(message.notice, { duration: 10_000 });
    },
    onConnectedChange: setNotificationsConnected,
  });
}
