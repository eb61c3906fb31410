/** The browser's WebSocket stand-in: records the sockets the client opens, and lets a test open one
 * and push messages into it as the server would. */
export class FakeWebSocket {
  static opened: FakeWebSocket[] = [];
  onopen: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent) => void) | null = null;
  onclose: ((event: CloseEvent) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;
  constructor(readonly url: string) {
    FakeWebSocket.opened.push(this);
  }
  open() {
    this.onopen?.(new Event("open"));
  }
  push(message: unknown) {
    this.onmessage?.(new MessageEvent("message", { data: JSON.stringify(message) }));
  }
  close() {}
}

/** For the enclosing describe block: `WebSocket` is the fake, with no socket opened yet. */
export function withFakeWebSocket(): void {
  beforeEach(() => {
    FakeWebSocket.opened = [];
    vi.stubGlobal("WebSocket", FakeWebSocket);
  });
  afterEach(() => vi.unstubAllGlobals());
}

/** The one socket the app opened, once it has. */
export async function openedSocket(): Promise<FakeWebSocket> {
  await vi.waitFor(() => expect(FakeWebSocket.opened).toHaveLength(1));
  return FakeWebSocket.opened[0]!;
}
