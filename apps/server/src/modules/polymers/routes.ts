import { polymerCreateBody, polymerListQuery, polymerPatchBody, polymerResponse } from "@polyforge/contracts/polymers";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { registerOwnedResourceRoutes } from "../../platform/resource-routes";
import type { ModuleContext } from "../module-context";
import { createPolymer, deletePolymer, getPolymer, listOwnPolymers, updatePolymer } from "./service";

/** /api/v2/polymers (SPEC §7): the caller's linear polymers; writes go to the draft system's. */
export function polymersRoutes({ database }: ModuleContext): FastifyPluginAsyncZod {
  return async (app) => {
    const db = database.db;
    registerOwnedResourceRoutes(app, {
      path: "/polymers",
      tag: "polymers",
      schemas: {
        item: polymerResponse,
        create: polymerCreateBody,
        patch: polymerPatchBody,
        listQuery: polymerListQuery,
      },
      summaries: {
        list: "List the caller's polymers",
        get: "One polymer",
        create: "Add a linear polymer to the draft",
        update: "Change a polymer of the draft",
        remove: "Delete a polymer of the draft",
      },
      service: {
        list: (db, user, query) => listOwnPolymers(db, user, query, false),
        get: getPolymer,
        create: createPolymer,
        update: updatePolymer,
        remove: deletePolymer,
      },
      draftList: {
        summary: "List the draft's polymers",
        list: (db, user, query) => listOwnPolymers(db, user, query, true),
      },
      db,
    });
  };
}
