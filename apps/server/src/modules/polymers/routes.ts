import { listResponse } from "@polyforge/contracts/pagination";
import { polymerCreateBody, polymerListQuery, polymerPatchBody, polymerResponse } from "@polyforge/contracts/polymers";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { requireUser } from "../../platform/auth/authenticate";
import { checkPathIdsOnRefusal } from "../../platform/errors";
import type { ModuleContext } from "../module-context";
import { createPolymer, deletePolymer, getPolymer, listOwnPolymers, updatePolymer } from "./service";

const idParams = z.object({ id: z.string() });
const tags = ["polymers"];
const polymerList = listResponse(polymerResponse);

/** /api/v2/polymers (SPEC §7): the caller's linear polymers; writes go to the draft system's. */
export function polymersRoutes({ database }: ModuleContext): FastifyPluginAsyncZod {
  return async (app) => {
    const db = database.db;
    // Another user's id answers 404 even when the body or query is refused too.
    checkPathIdsOnRefusal(app, { id: (request, id) => getPolymer(db, requireUser(request), id) });
    app.get(
      "/polymers",
      {
        schema: {
          tags,
          summary: "List the caller's polymers",
          querystring: polymerListQuery,
          response: { 200: polymerList },
        },
      },
      async (request) => listOwnPolymers(db, requireUser(request), request.query, false),
    );
    app.get(
      "/polymers/draft",
      {
        schema: {
          tags,
          summary: "List the draft's polymers",
          querystring: polymerListQuery,
          response: { 200: polymerList },
        },
      },
      async (request) => listOwnPolymers(db, requireUser(request), request.query, true),
    );
    app.get(
      "/polymers/:id",
      { schema: { tags, summary: "One polymer", params: idParams, response: { 200: polymerResponse } } },
      async (request) => getPolymer(db, requireUser(request), request.params.id),
    );
    app.post(
      "/polymers",
      {
        schema: {
          tags,
          summary: "Add a linear polymer to the draft",
          body: polymerCreateBody,
          response: { 201: polymerResponse },
        },
      },
      async (request, reply) => reply.status(201).send(await createPolymer(db, requireUser(request), request.body)),
    );
    app.patch(
      "/polymers/:id",
      {
        schema: {
          tags,
          summary: "Change a polymer of the draft",
          params: idParams,
          body: polymerPatchBody,
          response: { 200: polymerResponse },
        },
      },
      async (request) => updatePolymer(db, requireUser(request), request.params.id, request.body),
    );
    app.delete(
      "/polymers/:id",
      { schema: { tags, summary: "Delete a polymer of the draft", params: idParams, response: { 204: z.null() } } },
      async (request, reply) => {
        await deletePolymer(db, requireUser(request), request.params.id);
        return reply.status(204).send(null);
      },
    );
  };
}
