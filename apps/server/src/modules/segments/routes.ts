import { listResponse } from "@polyforge/contracts/pagination";
import { segmentCreateBody, segmentListQuery, segmentPatchBody, segmentResponse } from "@polyforge/contracts/segments";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { requireUser } from "../../platform/auth/authenticate";
import { checkPathIdsOnRefusal } from "../../platform/errors";
import type { ModuleContext } from "../module-context";
import { createSegment, deleteSegment, getSegment, listOwnSegments, updateSegment } from "./service";

const idParams = z.object({ id: z.string() });
const tags = ["segments"];
const segmentList = listResponse(segmentResponse);

/** /api/v2/segments (SPEC §7): the caller's segments; writes go to the draft system's. */
export function segmentsRoutes({ database }: ModuleContext): FastifyPluginAsyncZod {
  return async (app) => {
    const db = database.db;
    // Another user's id answers 404 even when the body or query is refused too.
    checkPathIdsOnRefusal(app, { id: (request, id) => getSegment(db, requireUser(request), id) });
    app.get(
      "/segments",
      {
        schema: {
          tags,
          summary: "List the caller's segments",
          querystring: segmentListQuery,
          response: { 200: segmentList },
        },
      },
      async (request) => listOwnSegments(db, requireUser(request), request.query, false),
    );
    app.get(
      "/segments/draft",
      {
        schema: {
          tags,
          summary: "List the draft's segments",
          querystring: segmentListQuery,
          response: { 200: segmentList },
        },
      },
      async (request) => listOwnSegments(db, requireUser(request), request.query, true),
    );
    app.get(
      "/segments/:id",
      { schema: { tags, summary: "One segment", params: idParams, response: { 200: segmentResponse } } },
      async (request) => getSegment(db, requireUser(request), request.params.id),
    );
    app.post(
      "/segments",
      {
        schema: {
          tags,
          summary: "Add a segment to the draft",
          body: segmentCreateBody,
          response: { 201: segmentResponse },
        },
      },
      async (request, reply) => reply.status(201).send(await createSegment(db, requireUser(request), request.body)),
    );
    app.patch(
      "/segments/:id",
      {
        schema: {
          tags,
          summary: "Change a segment of the draft",
          params: idParams,
          body: segmentPatchBody,
          response: { 200: segmentResponse },
        },
      },
      async (request) => updateSegment(db, requireUser(request), request.params.id, request.body),
    );
    app.delete(
      "/segments/:id",
      { schema: { tags, summary: "Delete a segment of the draft", params: idParams, response: { 204: z.null() } } },
      async (request, reply) => {
        await deleteSegment(db, requireUser(request), request.params.id);
        return reply.status(204).send(null);
      },
    );
  };
}
