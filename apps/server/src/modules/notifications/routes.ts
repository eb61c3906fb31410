import { CommonErrors } from "@polyforge/contracts/errors";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { decodeJwt } from "jose";
import { z } from "zod";
import type { Authenticator } from "../../platform/auth/authenticate";
import { AppError } from "../../platform/errors";
import type { ModuleContext } from "../module-context";

const KEEPALIVE_INTERVAL_MS = 30_000;
/** Close code when the access token runs out; the client reconnects with its refreshed token. */
export const TOKEN_EXPIRED_CLOSE_CODE = 4401;
/** Open notification sockets one user may hold on this server (issue 23: one token opened 500);
 * a user has a few tabs, each with one socket. */
export const MAX_SOCKETS_PER_USER = 20;

/** WebSocket /api/v2/notifications/?token=… (SPEC §7). Browsers cannot set headers on a WebSocket,
 * so the access token travels in the query; a bad token refuses the upgrade with the 401 envelope. */
export function notificationRoutes(context: ModuleContext, authenticate: Authenticator): FastifyPluginAsyncZod {
  const openSockets = new Map<string, number>();
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
          if ((openSockets.get(request.user.id) ?? 0) >= MAX_SOCKETS_PER_USER) {
            throw new AppError(429, CommonErrors.TOO_MANY_REQUESTS, { limit: MAX_SOCKETS_PER_USER });
          }
        },
      },
      (socket, request) => {
        const user = request.user!;
        openSockets.set(user.id, (openSockets.get(user.id) ?? 0) + 1);
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
          const open = (openSockets.get(user.id) ?? 1) - 1;
          if (open > 0) openSockets.set(user.id, open);
          else openSockets.delete(user.id);
          clearInterval(keepalive);
          clearTimeout(expiry);
          unsubscribe();
        });
      },
    );
  };
}
