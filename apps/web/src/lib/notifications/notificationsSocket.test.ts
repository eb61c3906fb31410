import type { NotificationType } from "@polyforge/contracts/notifications";
import { notificationsUrl, type SocketLike, startNotificationsSocket } from "./notificationsSocket";

class FakeSocket implements SocketLike {
  onopen: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent) => void) | null = null;
  onclose: ((event: CloseEvent) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;
  closed = false;
  constructor(readonly url: string) {}
  open() {
    this.onopen?.(new Event("open"));
  }
  receive(data: string) {
    this.onmessage?.(new MessageEvent("message", { data }));
  }
  serverClose() {
    this.onclose?.(new CloseEvent("close"));
  }
  close() {
    this.closed = true;
    this.onclose?.(new CloseEvent("close"));
  }
}

function setup(tokens: Array<string | Error>) {
  const sockets: FakeSocket[] = [];
  const notifications: NotificationType[] = [];
  const connected: boolean[] = [];
  const stop = startNotificationsSocket({
    getToken: async () => {
      const next = tokens.shift() ?? "last-token";
      if (next instanceof Error) throw next;
      return next;
    },
    onNotification: (type) => notifications.push(type),
    onConnectedChange: (value) => connected.push(value),
    openSocket: (url) => {
      const socket = new FakeSocket(url);
      sockets.push(socket);
      return socket;
    },
    location: { protocol: "https:", host: "example.org" },
  });
  return { sockets, notifications, connected, stop };
}

describe("notifications socket", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("builds ws:// or wss:// URLs by page protocol", () => {
    expect(notificationsUrl({ protocol: "http:", host: "localhost:8080" }, "a b")).toBe(
      "ws://localhost:8080/api/v2/notifications/?token=a%20b",
    );
    expect(notificationsUrl({ protocol: "https:", host: "x.org" }, "t")).toBe(
      "wss://x.org/api/v2/notifications/?token=t",
    );
  });

  it("reports known message types and ignores unparseable or unknown messages", async () => {
    const { sockets, notifications, connected, stop } = setup(["t1"]);
    await vi.advanceTimersByTimeAsync(0);
    const socket = sockets[0]!;
    socket.open();
    socket.receive('{"message_type":"system_execution_status_updated","system_id":"1"}');
    socket.receive("not json");
    socket.receive('{"message_type":"something_else"}');
    socket.receive('{"message_type":"uploaded_potential_status_updated"}');
    expect(notifications).toEqual(["system_execution_status_updated", "uploaded_potential_status_updated"]);
    expect(connected).toEqual([true]);
    stop();
  });

  it("reconnects 3000 ms after a close with a refreshed token, reporting disconnected meanwhile", async () => {
    const { sockets, connected, stop } = setup(["first", "second"]);
    await vi.advanceTimersByTimeAsync(0);
    sockets[0]!.open();
    sockets[0]!.serverClose();
    expect(connected).toEqual([true, false]);
    await vi.advanceTimersByTimeAsync(2999);
    expect(sockets).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(sockets).toHaveLength(2);
    expect(sockets[1]!.url).toBe("wss://example.org/api/v2/notifications/?token=second");
    sockets[1]!.open();
    expect(connected).toEqual([true, false, true]);
    stop();
  });

  it("retries when no token can be had", async () => {
    const { sockets, connected, stop } = setup([new Error("refresh failed"), "later"]);
    await vi.advanceTimersByTimeAsync(0);
    expect(sockets).toHaveLength(0);
    expect(connected).toEqual([false]);
    await vi.advanceTimersByTimeAsync(3000);
    expect(sockets).toHaveLength(1);
    expect(sockets[0]!.url).toContain("token=later");
    stop();
  });

  it("stops for good: closes the socket and does not reconnect", async () => {
    const { sockets, stop } = setup(["t"]);
    await vi.advanceTimersByTimeAsync(0);
    sockets[0]!.open();
    stop();
    expect(sockets[0]!.closed).toBe(true);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(sockets).toHaveLength(1);
  });
});
