import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { decodeJwt } from "jose";
import { z } from "zod";
import type { ModuleContext } from "../../app";
import type { Authenticator } from "../../platform/auth/authenticate";

const KEEPALIVE_INTERVAL_MS = 30_000;
/** Close code when the access token runs out; the client reconnects with its refreshed token. */
export const TOKEN_EXPIRED_CLOSE_CODE = 4401;

/** WebSocket /api/v2/notifications/?token=… (SPEC §7). Browsers cannot set headers on a WebSocket,
 * so the access token travels in the query; a bad token refuses the upgrade with the 401 envelope. */
export function notificationRoutes(context: ModuleContext, authenticate: Authenticator): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      "/api/v2/notifications",
      {
        websocket: true,
        schema: {
          tags: ["notifications"],
          summary: "Live updates for the signed-in user (WebSocket)",
          querystring: z.object({ token: z.string().optional() }),
        },
        preValidation: async (request) => {
          const { token } = request.query as { token?: string };
          request.user = await authenticate(token);
        },
      },
      (socket, request) => {
        const user = request.user!;
        const unsubscribe = context.notifications.subscribe(user.id, (message) => {
          if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
        });
        // A peer that vanished without closing (sleeping laptop, dropped network) misses a pong
        // and is let go, so its subscription does not linger.
        let answered = true;
        socket.on("pong", () => {
          answered = true;
        });
        const keepalive = setInterval(() => {
          if (!answered) return socket.terminate();
          answered = false;
          socket.ping();
        }, KEEPALIVE_INTERVAL_MS);
        // The socket lives no longer than the token that opened it (the token was verified, so
        // its exp is trustworthy).
        const { token } = request.query as { token: string };
        const expiresInMs = (decodeJwt(token).exp ?? 0) * 1000 - Date.now();
        const expiry = setTimeout(
          () => socket.close(TOKEN_EXPIRED_CLOSE_CODE, "token expired"),
          Math.max(expiresInMs, 0),
        );
        socket.on("close", () => {
          clearInterval(keepalive);
          clearTimeout(expiry);
          unsubscribe();
        });
      },
    );
  };
}
