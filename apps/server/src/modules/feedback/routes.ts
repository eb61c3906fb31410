import { feedbackSchema } from "@polyforge/contracts/feedback";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { requireUser } from "../../platform/auth/authenticate";
import type { ModuleContext } from "../module-context";
import { insertFeedback } from "./repository";

const feedbackResponse = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  created_at: z.string(),
});

/** PUT /api/v2/feedback: stores what the user sent from the feedback modal. */
export function feedbackRoutes({ database }: ModuleContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.put(
      "/feedback",
      {
        schema: {
          tags: ["feedback"],
          summary: "Send feedback",
          body: feedbackSchema,
          response: { 201: feedbackResponse },
        },
      },
      async (request, reply) => {
        const user = requireUser(request);
        const row = await insertFeedback(database.db, {
          ownerId: user.id,
          title: request.body.title,
          description: request.body.description,
        });
        return reply.status(201).send({
          id: row.id,
          title: row.title,
          description: row.description,
          created_at: row.createdAt.toISOString(),
        });
      },
    );
  };
}
