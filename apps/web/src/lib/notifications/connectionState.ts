import { SYSTEMS_POLL_MS } from "@polyforge/contracts/notifications";
import { useSyncExternalStore } from "react";

/** Whether the notifications socket is open; while it is not, lists that need live data poll. */
let connected = false;
const listeners = new Set<() => void>();

export function setNotificationsConnected(value: boolean): void {
  if (value === connected) return;
  connected = value;
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useNotificationsConnected(): boolean {
  return useSyncExternalStore(subscribe, () => connected);
}

/** refetchInterval for systems queries: poll every 5000 ms only while the socket is closed (SPEC §4). */
export function useSystemsPollInterval(): number | false {
  return useNotificationsConnected() ? false : SYSTEMS_POLL_MS;
}
