import { SystemErrors } from "@polyforge/contracts/errors";
import {
  createMolecularSystemBody,
  createMolecularSystemResponse,
  molecularSystemData,
  smilesBody,
} from "@polyforge/contracts/molecular-systems";
import {
  STRUCTURE_FILE,
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
import { contentTypeByExtension, sendDownload } from "../../platform/downloads";
import { AppError, checkPathIdsOnRefusal } from "../../platform/errors";
import type { ZodApp } from "../../platform/resource-routes";
import { scheduleUploadSweep } from "../../platform/storage/multipart";
import type { ModuleContext } from "../module-context";
import { requireCatalogueSystem } from "../systems/service";
import {
  abortIdleUploads,
  beginUpload,
  cancelUpload,
  completeUpload,
  createMolecularSystem,
  listUploadParts,
  type MolecularSystemsDeps,
  openStructure,
  openUploadedFile,
  partUploadUrl,
  STRUCTURE_FORMATS,
  type StructureDownload,
  saveSmiles,
  systemDataAnswer,
} from "./service";

const tags = ["systems"];
type Processing = ModuleContext["processing"];
const systemParams = z.object({ systemId: z.string() });

/** The error envelope (ARCHITECTURE §3), for the documented error answers. */
const apiError = z.object({
  errors: z.array(z.object({ error_code: z.string(), args: z.record(z.string(), z.unknown()) })),
});
const errors = (...statuses: Array<400 | 404 | 409 | 413 | 500 | 507>) =>
  Object.fromEntries(statuses.map((status) => [status, apiError])) as Record<number, typeof apiError>;

/** No body (OpenAPI: a response without content). zod's null becomes a nullable string in OpenAPI
 * 3.0; @fastify/swagger leaves the content out only for `type: "null"`. */
const noContent = (description: string) => z.null().meta({ type: "null", description } as Record<string, unknown>);

/** A file download, documented with its media types. */
const fileResponse = (description: string, mediaTypes: string[]) => ({
  description,
  content: Object.fromEntries(mediaTypes.map((type) => [type, { schema: z.string() }])),
});

/** The system's status after a call (system_data as contracts' molecularSystemData). */
const systemDataResponse = z.object({ id: z.string(), system_data: molecularSystemData });

const STRUCTURE_CONTENT_TYPES: Record<string, string> = {
  ".pdb": "chemical/x-pdb",
  ".gro": "text/plain",
  ".sdf": "chemical/x-mdl-sdfile",
};

/** A structure file; an uploaded one keeps the user's name, quotes, backslashes and line breaks
 * taken out. */
function sendStructure(reply: FastifyReply, file: StructureDownload) {
  const contentType = contentTypeByExtension(file.fileName, STRUCTURE_CONTENT_TYPES, "application/octet-stream");
  return sendDownload(reply, file, { contentType, strip: /["\\\r\n]/g });
}

/**
 * /api/v2/systems calls of systems from a file or a SMILES (SPEC §7): create, Save structure, the
 * multipart upload (begin / upload_url / parts / complete / cancel), and their structure files.
 */
export function molecularSystemsRoutes({ database, processing }: ModuleContext): FastifyPluginAsyncZod {
  return async (app) => {
    const db = database.db;
    const deps: MolecularSystemsDeps = { db, store: processing.store, logger: app.log };
    // Another user's system answers 404 even when the body or query is refused too.
    checkPathIdsOnRefusal(app, { systemId: (request, id) => requireCatalogueSystem(db, requireUser(request), id) });
    registerCreateRoutes(app, deps, processing);
    registerUploadPartRoutes(app, deps);
    registerUploadFinishRoutes(app, deps, processing);
    registerStructureFileRoutes(app, deps);
    // Uploads left idle past their part URLs' life are aborted (their parts leave the disk).
    scheduleUploadSweep(app, "structure file uploads", () => abortIdleUploads(deps));
  };
}

/** Create a system, and Save structure of a drawn one (queues its conversion, so the runner is woken). */
function registerCreateRoutes(app: ZodApp, deps: MolecularSystemsDeps, processing: Processing): void {
  app.post(
    "/systems",
    {
      schema: {
        tags,
        summary: "Create a system from a file (origin upload) or a SMILES (origin smiles)",
        body: createMolecularSystemBody,
        response: { 201: createMolecularSystemResponse, ...errors(400) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await createMolecularSystem(deps.db, requireUser(request), request.body)),
  );

  app.post(
    "/systems/:systemId/smiles",
    {
      schema: {
        tags,
        summary: "Save structure: convert the SMILES to a 3D structure (convert-smiles job)",
        description:
          "An empty, oversized or unreadable SMILES answers SYSTEM.CREATE_DRAWN_SYSTEM.INVALID_SMILES; a second Save while converting or once converted answers 409 and starts nothing.",
        params: systemParams,
        body: smilesBody,
        response: { 202: systemDataResponse, ...errors(400, 404, 409) },
      },
      // The SMILES's own code answers a body the contract refuses, not the generic validation one.
      attachValidation: true,
    },
    async (request, reply) => {
      const user = requireUser(request);
      if (request.validationError) {
        const parsedParams = systemParams.safeParse(request.params);
        if (!parsedParams.success) throw request.validationError;
        const smiles = (request.body as { smiles?: unknown } | undefined)?.smiles;
        throw new AppError(400, SystemErrors.CREATE_DRAWN_SYSTEM_INVALID_SMILES, {
          smiles: typeof smiles === "string" ? smiles.slice(0, 100) : null,
        });
      }
      const row = await saveSmiles(deps.db, user, request.params.systemId, request.body.smiles);
      processing.structures.wake();
      return reply.status(202).send(systemDataAnswer(row));
    },
  );
}

/** The structure file's multipart upload, sending its parts: begin, a part's URL, the parts so far. */
function registerUploadPartRoutes(app: ZodApp, deps: MolecularSystemsDeps): void {
  app.post(
    "/systems/:systemId/upload/begin",
    {
      schema: {
        tags,
        summary: "Begin a multipart upload of a .pdb or .gro file (up to 2000 MB)",
        params: systemParams,
        body: uploadBeginBody(STRUCTURE_FILE),
        response: { 200: uploadBeginResponse, ...errors(400, 404, 409, 500, 507) },
      },
    },
    async (request) => beginUpload(deps, requireUser(request), request.params.systemId, request.body),
  );

  app.get(
    "/systems/:systemId/upload/upload_url",
    {
      schema: {
        tags,
        summary: "A signed URL to PUT one part to (its answer's ETag header is the part's ETag)",
        params: systemParams,
        querystring: uploadUrlQuery,
        response: { 200: uploadUrlResponse, ...errors(400, 404, 413) },
      },
    },
    async (request) =>
      partUploadUrl(
        deps,
        requireUser(request),
        request.params.systemId,
        request.query.upload_id,
        request.query.part_number,
      ),
  );

  app.get(
    "/systems/:systemId/upload/parts",
    {
      schema: {
        tags,
        summary: "The parts stored so far (S3 ListParts), to resume an interrupted upload",
        params: systemParams,
        querystring: uploadPartsQuery,
        response: { 200: uploadPartsResponse, ...errors(400, 404) },
      },
    },
    async (request) => listUploadParts(deps, requireUser(request), request.params.systemId, request.query.upload_id),
  );
}

/** The upload ends: complete (queues the file's validation, so the runner is woken) or cancel. */
function registerUploadFinishRoutes(app: ZodApp, deps: MolecularSystemsDeps, processing: Processing): void {
  app.post(
    "/systems/:systemId/upload/complete",
    {
      schema: {
        tags,
        summary: "Complete the upload and validate the file (validate-structure job)",
        description:
          "Parts are assembled in part-number order. A part missing, not stored or with another ETag answers 400 SYSTEM.CREATE_UPLOADED_SYSTEM.FAILED (reason InvalidPart) and keeps the stored parts for a retry.",
        params: systemParams,
        body: uploadCompleteBody,
        response: { 200: systemDataResponse, ...errors(400, 404, 409, 507) },
      },
    },
    async (request) => {
      const row = await completeUpload(deps, requireUser(request), request.params.systemId, request.body);
      processing.structures.wake();
      return systemDataAnswer(row);
    },
  );

  app.post(
    "/systems/:systemId/upload/cancel",
    {
      schema: {
        tags,
        summary: "Cancel the upload and drop its parts (a second cancel answers the same)",
        params: systemParams,
        body: uploadCancelBody,
        response: { 204: noContent("Cancelled (or already gone)"), ...errors(400, 404) },
      },
    },
    async (request, reply) => {
      await cancelUpload(deps, requireUser(request), request.params.systemId, request.body.upload_id);
      return reply.status(204).send(null);
    },
  );
}

/** Downloads: the structure the viewer shows, and the file as uploaded. */
function registerStructureFileRoutes(app: ZodApp, deps: MolecularSystemsDeps): void {
  app.get(
    "/systems/:systemId/structure",
    {
      schema: {
        tags,
        summary: "The structure the viewer shows (validated upload or converted SMILES)",
        params: systemParams,
        querystring: z.object({ format: z.enum(STRUCTURE_FORMATS).optional() }),
        response: {
          200: fileResponse("The structure file", ["chemical/x-pdb", "text/plain", "chemical/x-mdl-sdfile"]),
          ...errors(400, 404, 409),
        },
      },
    },
    async (request, reply) =>
      sendStructure(
        reply,
        await openStructure(deps, requireUser(request), request.params.systemId, request.query.format),
      ),
  );

  app.get(
    "/systems/:systemId/upload/file",
    {
      schema: {
        tags,
        summary: "Download the file as uploaded",
        params: systemParams,
        response: {
          200: fileResponse("The file as uploaded", ["chemical/x-pdb", "text/plain"]),
          ...errors(400, 404, 409),
        },
      },
    },
    async (request, reply) =>
      sendStructure(reply, await openUploadedFile(deps, requireUser(request), request.params.systemId)),
  );
}
