import { SYSTEM_TYPES, type SystemType } from "@polyforge/contracts/enums";
import { SystemErrors } from "@polyforge/contracts/errors";
import { systemsList, systemsListQuery, systemWithExecutions } from "@polyforge/contracts/system-executions";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { requireUser } from "../../platform/auth/authenticate";
import { AppError } from "../../platform/errors";
import { abortStoredUploads } from "../../platform/storage/multipart";
import type { ModuleContext } from "../module-context";
import { systemIdsInProject } from "../projects/service";
import { archiveSystem, getSystem, listSystems } from "./service";

const tags = ["systems"];

/** /api/v2/systems catalogue calls (SPEC §7): list, get and archive the caller's systems. */
export function catalogueRoutes({ database, processing }: ModuleContext): FastifyPluginAsyncZod {
  return async (app) => {
    const db = database.db;
    app.get(
      "/systems",
      {
        schema: {
          tags,
          summary: "List molecular systems",
          querystring: systemsListQuery,
          response: { 200: systemsList },
        },
        // An unknown type answers the systems' own INVALID_QUERY code.
        preValidation: async (request) => {
          const type = (request.query as { type?: unknown }).type;
          if (type !== undefined && !SYSTEM_TYPES.includes(type as SystemType)) {
            throw new AppError(400, SystemErrors.GET_INVALID_QUERY, { type });
          }
        },
      },
      async (request) => {
        const { page_num, page_size, type, name, project_id } = request.query;
        const user = requireUser(request);
        // A project's systems are the projects module's to say; another user's project answers 404.
        const ids = project_id ? await systemIdsInProject(db, user, project_id) : undefined;
        return listSystems(db, user, { type, name, ids }, { page_num, page_size });
      },
    );
    app.get(
      "/systems/:id",
      {
        schema: {
          tags,
          summary: "A system with its potentials and executions",
          params: z.object({ id: z.string() }),
          response: { 200: systemWithExecutions },
        },
      },
      async (request) => getSystem(db, requireUser(request), request.params.id),
    );
    app.delete(
      "/systems/:id",
      {
        schema: {
          tags,
          summary: "Archive a system",
          params: z.object({ id: z.string() }),
          response: { 204: z.null() },
        },
      },
      async (request, reply) => {
        const cancelled = await archiveSystem(db, requireUser(request), request.params.id);
        if (cancelled.execution) processing.runner.cancel(cancelled.execution);
        for (const potentialId of cancelled.potentials) processing.potentials.cancel(potentialId);
        // No part of the archived system's uploads is taken any more.
        await abortStoredUploads(processing.store, cancelled.uploads, request.log);
        return reply.status(204).send(null);
      },
    );
  };
}
