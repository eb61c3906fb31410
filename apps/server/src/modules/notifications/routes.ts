import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { ModuleContext } from "../../app";
import type { Authenticator } from "../../platform/auth/authenticate";

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
        socket.on("close", unsubscribe);
        socket.on("error", unsubscribe);
      },
    );
  };
}
