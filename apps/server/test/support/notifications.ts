import type { NotificationMessage } from "@polyforge/contracts/notifications";
import WebSocket from "ws";

/** Opens a notifications socket at `url` (ws://…/api/v2/notifications/?token=…) and collects every
 * message it receives; resolves once the socket is open. */
export async function openNotifications(url: string): Promise<{ socket: WebSocket; messages: NotificationMessage[] }> {
  const socket = new WebSocket(url);
  const messages: NotificationMessage[] = [];
  socket.on("message", (data) => messages.push(JSON.parse(data.toString())));
  await new Promise((resolve, reject) => {
    socket.once("open", resolve);
    socket.once("error", reject);
  });
  return { socket, messages };
}
