import { SYSTEM_TYPES, type SystemType } from "@polyforge/contracts/enums";
import { SystemErrors } from "@polyforge/contracts/errors";
import { systemsList, systemsListQuery, systemWithExecutions } from "@polyforge/contracts/system-executions";
import { finishDraftBody, systemResponse } from "@polyforge/contracts/systems";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { requireUser } from "../../platform/auth/authenticate";
import { AppError, checkPathIdsOnRefusal } from "../../platform/errors";
import { isUuid } from "../../platform/ids";
import { abortStoredUploads } from "../../platform/storage/multipart";
import type { ModuleContext } from "../module-context";
import { systemIdsInProject } from "../projects/service";
import { archiveSystem, createDraft, deleteDraft, finishDraft, getDraft, getSystem, listSystems } from "./service";

const tags = ["systems"];

/** /api/v2/systems draft calls (SPEC §7): the polymer builder's one draft system per user. */
export function systemDraftRoutes({ database, config }: ModuleContext): FastifyPluginAsyncZod {
  return async (app) => {
    const db = database.db;
    // An id other than the caller's draft answers 404 even when the body is refused too.
    checkPathIdsOnRefusal(app, {
      id: async (request, id) => {
        if (!isUuid(id)) return;
        const draft = await getDraft(db, requireUser(request)).catch(() => undefined);
        if (draft?.id !== id) throw new AppError(404, SystemErrors.UPDATE_NOT_FOUND, { id });
      },
    });
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
      async (request) => finishDraft(db, requireUser(request), request.params.id, request.body, config.jobLimits),
    );
  };
}

/** /api/v2/systems catalogue calls (SPEC §7): list, get and archive the caller's systems. */
export function systemCatalogueRoutes({ database, processing }: ModuleContext): FastifyPluginAsyncZod {
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
