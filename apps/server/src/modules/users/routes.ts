import { accountUpdateSchema, passwordChangeSchema, userAccount } from "@polyforge/contracts/users";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { requireUser } from "../../platform/auth/authenticate";
import type { ModuleContext } from "../module-context";
import { changePassword, getAccount, updateAccount } from "./service";

/** /api/v2/users: the caller's own account (SPEC §2 Account, §7 Users). */
export function usersRoutes({ database }: ModuleContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      "/users/account",
      { schema: { tags: ["users"], summary: "The caller's account", response: { 200: userAccount } } },
      async (request) => getAccount(database.db, requireUser(request)),
    );

    app.put(
      "/users/account",
      {
        schema: {
          tags: ["users"],
          summary: "Update names and the remote-support toggle",
          body: accountUpdateSchema,
          response: { 200: userAccount },
        },
      },
      async (request) => updateAccount(database.db, requireUser(request), request.body),
    );

    app.put(
      "/users/password",
      {
        schema: {
          tags: ["users"],
          summary: "Change the caller's password",
          body: passwordChangeSchema,
          response: { 204: z.null() },
        },
      },
      async (request, reply) => {
        await changePassword(database.db, requireUser(request), request.body);
        return reply.status(204).send(null);
      },
    );
  };
}
