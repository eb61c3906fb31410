import type { NotificationMessage } from "@polyforge/contracts/notifications";
import type { FastifyBaseLogger } from "fastify";
import { type Database, type Db, notify } from "../db/database";

/** One PostgreSQL channel carries every user's messages; the payload names the user, and each API
 * instance delivers to the sockets it holds for that user (ARCHITECTURE §7). */
export const NOTIFICATIONS_CHANNEL = "polyforge_notifications";

/** PostgreSQL refuses NOTIFY payloads of 8000 bytes or more. */
const MAX_PAYLOAD_BYTES = 7900;

interface NotificationEnvelope {
  user_id: string;
  message: NotificationMessage;
}

/** Publishes a message to a user's sockets on every API instance. Inside a transaction it is sent
 * when (and only if) the transaction commits. */
export async function publishNotification(db: Db, userId: string, message: NotificationMessage): Promise<void> {
  const payload = JSON.stringify({ user_id: userId, message } satisfies NotificationEnvelope);
  if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) {
    throw new Error(`Notification ${message.message_type} is too large for NOTIFY (${payload.length} bytes)`);
  }
  await notify(db, NOTIFICATIONS_CHANNEL, payload);
}

export type Deliver = (message: NotificationMessage) => void;

/** This instance's subscribers (open sockets) per user, fed by LISTEN. */
export class NotificationHub {
  private readonly subscribers = new Map<string, Set<Deliver>>();

  private constructor(
    private readonly logger: FastifyBaseLogger,
    private unlisten: (() => Promise<void>) | undefined = undefined,
  ) {}

  static async start(database: Database, logger: FastifyBaseLogger): Promise<NotificationHub> {
    const hub = new NotificationHub(logger);
    hub.unlisten = await database.listen(NOTIFICATIONS_CHANNEL, (payload) => hub.dispatch(payload));
    return hub;
  }

  /** Delivers the user's messages to `deliver` until the returned function is called. */
  subscribe(userId: string, deliver: Deliver): () => void {
    let userSubscribers = this.subscribers.get(userId);
    if (!userSubscribers) {
      userSubscribers = new Set();
      this.subscribers.set(userId, userSubscribers);
    }
    userSubscribers.add(deliver);
    return () => {
      userSubscribers.delete(deliver);
      if (userSubscribers.size === 0 && this.subscribers.get(userId) === userSubscribers)
        this.subscribers.delete(userId);
    };
  }

  async close(): Promise<void> {
    this.subscribers.clear();
    await this.unlisten?.();
    this.unlisten = undefined;
  }

  private dispatch(payload: string): void {
    let envelope: NotificationEnvelope;
    try {
      envelope = JSON.parse(payload) as NotificationEnvelope;
    } catch (err) {
      this.logger.warn({ err }, "ignoring a malformed notification payload");
      return;
    }
    for (const deliver of this.subscribers.get(envelope.user_id) ?? []) {
      try {
        deliver(envelope.message);
      } catch (err) {
        this.logger.warn({ err }, "a notification subscriber failed");
      }
    }
  }
}
