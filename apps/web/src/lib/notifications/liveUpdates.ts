import type { QueryClient } from "@tanstack/react-query";
import { freshAccessToken } from "../auth/session";
import { setNotificationsConnected } from "./connectionState";
import { startNotificationsSocket } from "./notificationsSocket";

/** Every cached systems query starts with this key, so one notification refreshes them all. */
export const SYSTEMS_QUERY_KEY = ["systems"] as const;

/** Connects the notifications socket to the query cache. Returns a function that stops it. */
export function startLiveUpdates(queryClient: QueryClient): () => void {
  return startNotificationsSocket({
    getToken: freshAccessToken,
    onNotification: () => void queryClient.invalidateQueries({ queryKey: SYSTEMS_QUERY_KEY }),
    onConnectedChange: setNotificationsConnected,
  });
}
