import { finishDraftBody, systemResponse } from "@polyforge/contracts/systems";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { ModuleContext } from "../../app";
import { requireUser } from "../../platform/auth/authenticate";
import { createDraft, deleteDraft, finishDraft, getDraft } from "./service";

const tags = ["systems"];

/** /api/v2/systems draft calls (SPEC §7): the polymer builder's one draft system per user. */
export function systemDraftRoutes({ database }: ModuleContext): FastifyPluginAsyncZod {
  return async (app) => {
    const db = database.db;
    app.post(
      "/systems/draft",
      { schema: { tags, summary: "Start a polymer-builder draft", response: { 201: systemResponse } } },
      async (request, reply) => reply.status(201).send(await createDraft(db, requireUser(request))),
    );
    app.get(
      "/systems/draft",
      { schema: { tags, summary: "The caller's draft system", response: { 200: systemResponse } } },
      async (request) => getDraft(db, requireUser(request)),
    );
    app.delete(
      "/systems/draft",
      { schema: { tags, summary: "Clear the draft", response: { 204: z.null() } } },
      async (request, reply) => {
        await deleteDraft(db, requireUser(request));
        return reply.status(204).send(null);
      },
    );
    app.patch(
      "/systems/:id/draft",
      {
        schema: {
          tags,
          summary: "Name and finish the draft",
          params: z.object({ id: z.string() }),
          body: finishDraftBody,
          response: { 200: systemResponse },
        },
      },
      async (request) => finishDraft(db, requireUser(request), request.params.id, request.body),
    );
  };
}
