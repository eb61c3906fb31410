import { createPotentialBody, potentialResponse, potentialsList } from "@polyforge/contracts/potentials";
import {
  TOPOLOGY_FILE,
  uploadBeginBody,
  uploadBeginResponse,
  uploadCancelBody,
  uploadCompleteBody,
  uploadPartsQuery,
  uploadPartsResponse,
  uploadUrlQuery,
  uploadUrlResponse,
} from "@polyforge/contracts/uploads";
import type { FastifyReply } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { requireUser } from "../../platform/auth/authenticate";
import { sendDownload } from "../../platform/downloads";
import { checkPathIdsOnRefusal } from "../../platform/errors";
import { apiErrorSchema } from "../../platform/http";
import type { ZodApp } from "../../platform/resource-routes";
import { scheduleUploadSweep } from "../../platform/storage/multipart";
import type { ModuleContext } from "../module-context";
import {
  abortIdleTopologyUploads,
  beginTopologyUpload,
  cancelGeneration,
  cancelTopologyUpload,
  completeTopologyUpload,
  createPotential,
  getPotential,
  listPotentials,
  openPotentialFiles,
  type PotentialDownload,
  type PotentialsDeps,
  removePotential,
  requirePotentialsSystem,
  topologyParts,
  topologyPartUrl,
} from "./service";

const tags = ["potentials"];
const BASE = "/systems/:systemId/potentials";
type Processing = ModuleContext["processing"];

/** A potential's zip or uploaded .top (the user's name: quotes, backslashes and line breaks taken out). */
function sendPotentialFile(reply: FastifyReply, file: PotentialDownload) {
  return sendDownload(reply, file, { contentType: file.contentType, strip: /["\\\r\n]/g });
}

const systemParams = z.object({ systemId: z.string() });
const potentialParams = z.object({ systemId: z.string(), potentialId: z.string() });

/** No body (OpenAPI: a response without content; @fastify/swagger leaves it out only for
 * `type: "null"`). */
const noContent = (description: string) => z.null().meta({ type: "null", description } as Record<string, unknown>);

/**
 * /api/v2/systems/{systemId}/potentials calls (SPEC §7, issue 21): list, create (generate or
 * upload), read, delete, cancel a generation, the .top's multipart upload and the files. Every call
 * is scoped to the caller: another user's system or potential answers 404.
 */
export function potentialsRoutes({ database, processing, config }: ModuleContext): FastifyPluginAsyncZod {
  return async (app) => {
    const db = database.db;
    const deps: PotentialsDeps = { db, store: processing.store, logger: app.log, limits: config.jobLimits };
    // Another user's system or potential answers 404 even when the body or query is refused too.
    checkPathIdsOnRefusal(app, {
      systemId: (request, id) => requirePotentialsSystem(db, requireUser(request), id),
      potentialId: (request, id) =>
        getPotential(db, requireUser(request), (request.params as { systemId: string }).systemId, id),
    });
    registerPotentialRecordRoutes(app, deps, processing);
    registerPotentialStopRoutes(app, deps, processing);
    registerTopologyPartRoutes(app, deps);
    registerTopologyFinishRoutes(app, deps, processing);
    registerPotentialFilesRoute(app, deps);
    // .top uploads left idle past their part URLs' life are aborted (their parts leave the disk).
    scheduleUploadSweep(app, "topology uploads", () => abortIdleTopologyUploads(deps));
  };
}

/** List, create (a generation is queued at once, so the runner is woken) and read. */
function registerPotentialRecordRoutes(app: ZodApp, deps: PotentialsDeps, processing: Processing): void {
  app.get(
    BASE,
    {
      schema: {
        tags,
        summary: "The system's potentials, oldest first",
        params: systemParams,
        response: { 200: potentialsList },
      },
    },
    async (request) => listPotentials(deps.db, requireUser(request), request.params.systemId),
  );

  app.post(
    BASE,
    {
      schema: {
        tags,
        summary: "Add a potential: generate (GAFF/GAFF2, queued at once) or upload (a .top follows)",
        description:
          "The structure must be validated (file) or converted (SMILES), else 409 SYSTEM.CREATE_POTENTIAL.STRUCTURE_NOT_READY. One draft (an uploaded potential still without its file) at a time: 409 SYSTEM.CREATE_POTENTIAL.EXISTING_DRAFT. The cosmetics organization gets GAFF2 only: 400 SYSTEM.CREATE_POTENTIAL.FORCE_FIELD_NOT_ALLOWED.",
        params: systemParams,
        body: createPotentialBody,
        response: { 201: potentialResponse },
      },
    },
    async (request, reply) => {
      const created = await createPotential(deps, requireUser(request), request.params.systemId, request.body);
      if (created.origin === "generate") processing.potentials.wake();
      return reply.status(201).send(created);
    },
  );

  app.get(
    `${BASE}/:potentialId`,
    { schema: { tags, summary: "One potential", params: potentialParams, response: { 200: potentialResponse } } },
    async (request) => getPotential(deps.db, requireUser(request), request.params.systemId, request.params.potentialId),
  );
}

/** Delete and cancel: both stop a running generation's engine. */
function registerPotentialStopRoutes(app: ZodApp, deps: PotentialsDeps, processing: Processing): void {
  app.delete(
    `${BASE}/:potentialId`,
    {
      schema: {
        tags,
        summary: "Delete a potential (a generation in progress is stopped, its engine killed)",
        params: potentialParams,
        response: { 204: noContent("Deleted") },
      },
    },
    async (request, reply) => {
      const deleted = await removePotential(
        deps,
        requireUser(request),
        request.params.systemId,
        request.params.potentialId,
      );
      processing.potentials.cancel(deleted.id);
      return reply.status(204).send(null);
    },
  );

  app.delete(
    `${BASE}/:potentialId/process/cancel`,
    {
      schema: {
        tags,
        summary: "Cancel a waiting or running generation",
        params: potentialParams,
        response: { 200: potentialResponse },
      },
    },
    async (request) => {
      const row = await cancelGeneration(
        deps.db,
        requireUser(request),
        request.params.systemId,
        request.params.potentialId,
      );
      processing.potentials.cancel(row.id);
      return row;
    },
  );
}

/** The .top's multipart upload, sending its parts: begin, a part's URL, the parts so far. */
function registerTopologyPartRoutes(app: ZodApp, deps: PotentialsDeps): void {
  app.post(
    `${BASE}/:potentialId/upload/begin`,
    {
      schema: {
        tags,
        summary: "Begin a multipart upload of the potential's .top (up to 4000 MB)",
        params: potentialParams,
        body: uploadBeginBody(TOPOLOGY_FILE),
        response: { 200: uploadBeginResponse, 507: apiErrorSchema },
      },
    },
    async (request) =>
      beginTopologyUpload(
        deps,
        requireUser(request),
        request.params.systemId,
        request.params.potentialId,
        request.body,
      ),
  );

  app.get(
    `${BASE}/:potentialId/upload/upload_url`,
    {
      schema: {
        tags,
        summary: "A signed URL to PUT one part to (its answer's ETag header is the part's ETag)",
        params: potentialParams,
        querystring: uploadUrlQuery,
        response: { 200: uploadUrlResponse, 413: apiErrorSchema },
      },
    },
    async (request) =>
      topologyPartUrl(
        deps,
        requireUser(request),
        request.params.systemId,
        request.params.potentialId,
        request.query.upload_id,
        request.query.part_number,
      ),
  );

  app.get(
    `${BASE}/:potentialId/upload/parts`,
    {
      schema: {
        tags,
        summary: "The parts stored so far (S3 ListParts), to resume an interrupted upload",
        params: potentialParams,
        querystring: uploadPartsQuery,
        response: { 200: uploadPartsResponse },
      },
    },
    async (request) =>
      topologyParts(
        deps,
        requireUser(request),
        request.params.systemId,
        request.params.potentialId,
        request.query.upload_id,
      ),
  );
}

/** The .top's upload ends: complete (queues the check against the structure, so the runner is woken) or cancel. */
function registerTopologyFinishRoutes(app: ZodApp, deps: PotentialsDeps, processing: Processing): void {
  app.post(
    `${BASE}/:potentialId/upload/complete`,
    {
      schema: {
        tags,
        summary: "Complete the upload and check the .top against the structure (validate-topology job)",
        params: potentialParams,
        body: uploadCompleteBody,
        response: { 200: potentialResponse, 507: apiErrorSchema },
      },
    },
    async (request) => {
      const completed = await completeTopologyUpload(
        deps,
        requireUser(request),
        request.params.systemId,
        request.params.potentialId,
        request.body,
      );
      processing.potentials.wake();
      return completed;
    },
  );

  app.post(
    `${BASE}/:potentialId/upload/cancel`,
    {
      schema: {
        tags,
        summary: "Cancel the upload and drop its parts (a second cancel answers the same)",
        params: potentialParams,
        body: uploadCancelBody,
        response: { 204: noContent("Cancelled (or already gone)") },
      },
    },
    async (request, reply) => {
      await cancelTopologyUpload(
        deps,
        requireUser(request),
        request.params.systemId,
        request.params.potentialId,
        request.body.upload_id,
      );
      return reply.status(204).send(null);
    },
  );
}

/** The potential's files: a generation's zip or the uploaded .top. */
function registerPotentialFilesRoute(app: ZodApp, deps: PotentialsDeps): void {
  app.get(
    `${BASE}/:potentialId/files`,
    {
      schema: {
        tags,
        summary: "A completed generation's files as one zip, or an uploaded potential's .top",
        params: potentialParams,
        response: {
          200: {
            description: "The zip (generate) or the .top as uploaded (upload)",
            content: { "application/zip": { schema: z.string() }, "text/plain": { schema: z.string() } },
          },
        },
      },
    },
    async (request, reply) =>
      sendPotentialFile(
        reply,
        await openPotentialFiles(deps, requireUser(request), request.params.systemId, request.params.potentialId),
      ),
  );
}
