import {
  NOTIFICATION_RETRY_MS,
  NOTIFICATION_TYPES,
  type NotificationMessage,
  type NotificationType,
} from "@polyforge/contracts/notifications";

/** Minimal WebSocket surface used here, so tests can hand in a stand-in for the browser's socket. */
export interface SocketLike {
  onopen: ((event: Event) => void) | null;
  onmessage: ((event: MessageEvent) => void) | null;
  onclose: ((event: CloseEvent) => void) | null;
  onerror: ((event: Event) => void) | null;
  close(): void;
}

export interface NotificationsSocketOptions {
  /** A fresh access token; called before every (re)connection. */
  getToken: () => Promise<string>;
  /** Each known message: its type, and the whole message (e.g. an execution's `notice`). */
  onNotification: (type: NotificationType, message: NotificationMessage) => void;
  onConnectedChange: (connected: boolean) => void;
  openSocket?: (url: string) => SocketLike;
  /** Page location, to pick ws:// or wss:// and the host. */
  location?: Pick<Location, "protocol" | "host">;
  retryDelayMs?: number;
}

export function notificationsUrl(location: Pick<Location, "protocol" | "host">, token: string): string {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/api/v2/notifications/?token=${encodeURIComponent(token)}`;
}

function notification(data: unknown): NotificationMessage | null {
  if (typeof data !== "string") return null;
  try {
    const message = JSON.parse(data) as { message_type?: unknown } | null;
    const known = NOTIFICATION_TYPES.some((type) => type === message?.message_type);
    return known ? (message as NotificationMessage) : null;
  } catch {
    return null; // SPEC §7: parse errors are ignored.
  }
}

/**
 * The live-update socket of SPEC §4: each known message is reported; when the socket closes (or no
 * token could be had) it reports "disconnected" so lists poll, and reconnects after 3000 ms with a
 * refreshed token.
 */
export function startNotificationsSocket(options: NotificationsSocketOptions): () => void {
  const {
    getToken,
    onNotification,
    onConnectedChange,
    openSocket = (url) => new WebSocket(url),
    location = window.location,
    retryDelayMs = NOTIFICATION_RETRY_MS,
  } = options;
  let socket: SocketLike | null = null;
  let retryTimer: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;

  const scheduleReconnect = () => {
    onConnectedChange(false);
    if (stopped || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = null;
      void connect();
    }, retryDelayMs);
  };

  async function connect() {
    let token: string;
    try {
      token = await getToken();
    } catch {
      scheduleReconnect();
      return;
    }
    if (stopped) return;
    const current = openSocket(notificationsUrl(location, token));
    socket = current;
    current.onopen = () => onConnectedChange(true);
    current.onmessage = (event) => {
      const message = notification(event.data);
      if (message) onNotification(message.message_type, message);
    };
    current.onerror = () => {}; // a close event always follows
    current.onclose = () => {
      if (socket !== current) return;
      socket = null;
      scheduleReconnect();
    };
  }

  void connect();

  return () => {
    stopped = true;
    if (retryTimer) clearTimeout(retryTimer);
    const open = socket;
    socket = null;
    open?.close();
    onConnectedChange(false);
  };
}
