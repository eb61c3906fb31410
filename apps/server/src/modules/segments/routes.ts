import { segmentCreateBody, segmentListQuery, segmentPatchBody, segmentResponse } from "@polyforge/contracts/segments";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { registerOwnedResourceRoutes } from "../../platform/resource-routes";
import type { ModuleContext } from "../module-context";
import { createSegment, deleteSegment, getSegment, listOwnSegments, updateSegment } from "./service";

/** /api/v2/segments (SPEC §7): the caller's segments; writes go to the draft system's. */
export function segmentsRoutes({ database }: ModuleContext): FastifyPluginAsyncZod {
  return async (app) => {
    const db = database.db;
    registerOwnedResourceRoutes(app, {
      path: "/segments",
      tag: "segments",
      schemas: {
        item: segmentResponse,
        create: segmentCreateBody,
        patch: segmentPatchBody,
        listQuery: segmentListQuery,
      },
      summaries: {
        list: "List the caller's segments",
        get: "One segment",
        create: "Add a segment to the draft",
        update: "Change a segment of the draft",
        remove: "Delete a segment of the draft",
      },
      service: {
        list: (db, user, query) => listOwnSegments(db, user, query, false),
        get: getSegment,
        create: createSegment,
        update: updateSegment,
        remove: deleteSegment,
      },
      draftList: {
        summary: "List the draft's segments",
        list: (db, user, query) => listOwnSegments(db, user, query, true),
      },
      db,
    });
  };
}
