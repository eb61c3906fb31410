import { systemExecution } from "@polyforge/contracts/system-executions";
import type { FastifyReply } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { requireUser } from "../../platform/auth/authenticate";
import { contentTypeByExtension, sendDownload } from "../../platform/downloads";
import type { ModuleContext } from "../module-context";
import { cancelProcessing, openResultFile, openResultsBundle, type StoredFile, startProcessing } from "./service";

const tags = ["systems"];
const systemParams = z.object({ systemId: z.string() });

const CONTENT_TYPES: Record<string, string> = {
  ".zip": "application/zip",
  ".csv": "text/csv; charset=utf-8",
  ".json": "application/json",
};

/** A result file or the results bundle; their names are the engine's or '{sanitized_name}_files.zip',
 * so only a quote is taken out. */
function sendFile(reply: FastifyReply, file: StoredFile) {
  const contentType = contentTypeByExtension(file.fileName, CONTENT_TYPES, "text/plain; charset=utf-8");
  return sendDownload(reply, file, { contentType, strip: /"/g });
}

/** /api/v2/systems/{systemId}/process/* and /files (SPEC §7): processing and its results. */
export function systemExecutionsRoutes({ database, processing }: ModuleContext): FastifyPluginAsyncZod {
  return async (app) => {
    const { db } = database;
    app.post(
      "/systems/:systemId/process/start",
      {
        schema: {
          tags,
          summary: "Start processing a polymer-builder system",
          params: systemParams,
          response: { 201: systemExecution },
        },
      },
      async (request, reply) => {
        const execution = await startProcessing(db, requireUser(request), request.params.systemId);
        processing.runner.wake();
        return reply.status(201).send(execution);
      },
    );
    app.delete(
      "/systems/:systemId/process/cancel",
      {
        schema: {
          tags,
          summary: "Cancel a waiting or running processing",
          params: systemParams,
          response: { 200: systemExecution },
        },
      },
      async (request) => {
        const execution = await cancelProcessing(db, requireUser(request), request.params.systemId);
        processing.runner.cancel(execution.id);
        return execution;
      },
    );
    app.get(
      "/systems/:systemId/files",
      { schema: { tags, summary: "Download the results as '{sanitized_name}_files.zip'", params: systemParams } },
      async (request, reply) =>
        sendFile(reply, await openResultsBundle(db, processing.store, requireUser(request), request.params.systemId)),
    );
    app.get(
      "/systems/:systemId/files/:name",
      {
        schema: {
          tags,
          summary: "One result file (structures, energies)",
          params: systemParams.extend({ name: z.string().regex(/^[\w.-]+$/) }),
        },
      },
      async (request, reply) =>
        sendFile(
          reply,
          await openResultFile(
            db,
            processing.store,
            requireUser(request),
            request.params.systemId,
            request.params.name,
          ),
        ),
    );
  };
}
