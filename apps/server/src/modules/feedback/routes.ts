import { feedbackSchema } from "@polyforge/contracts/feedback";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { requireUser } from "../../platform/auth/authenticate";
import type { ModuleContext } from "../module-context";
import { sendFeedback } from "./service";

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
        const row = await sendFeedback(database.db, user.id, request.body);
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
