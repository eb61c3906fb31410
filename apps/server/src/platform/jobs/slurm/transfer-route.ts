import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { CommonErrors } from "@polyforge/contracts/errors";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Config } from "../../config";
import { errorBody } from "../../errors";
import type { FileStore } from "../../storage/file-store";
import { LOCAL_JOB_FILE_ROUTE, LocalJobFileUrls } from "./transfer";

/**
 * The embedded store's answer to presigned GET and PUT for Slurm jobs without a shared filesystem
 * (POLYFORGE_SLURM_TRANSFER=store): a compute node fetches a job's inputs and sends back its
 * events and results at URLs the server signed for that object, method and time (no bearer token,
 * as with S3's presigned URLs), only under `slurm-jobs/`. Bodies stream to and from disk.
 */
export function jobFileRoute(config: Config, store: FileStore): FastifyPluginAsyncZod {
  return async (app) => {
    const urls = LocalJobFileUrls.fromConfig(config);
    const temporaryDir = join(config.dataDir, "jobs", "incoming");
    // A PUT's body is left unread (request.raw) for the handler to stream to disk.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser("*", (_request, _payload, done) => done(null));
    const schema = (method: "GET" | "PUT") => ({
      tags: ["jobs"],
      summary: `${method === "GET" ? "Fetch" : "Send"} a Slurm job's file at a signed URL (embedded file store)`,
      security: [],
      params: z.object({ "*": z.string().max(1000) }),
      querystring: z.object({
        method: z.literal(method),
        expires: z.coerce.number().int(),
        signature: z.string().max(128),
      }),
    });
    const refuse = (reply: import("fastify").FastifyReply) =>
      reply
        .status(403)
        .header("connection", "close")
        .send(
          errorBody(CommonErrors.FORBIDDEN_POLICY_CHECK_FAILED, {
            message: "The job file URL's signature does not match or has expired.",
          }),
        );

    app.get(LOCAL_JOB_FILE_ROUTE, { schema: schema("GET") }, async (request, reply) => {
      const key = request.params["*"];
      const { expires, signature } = request.query;
      if (!urls.allows(key, "GET", expires, signature)) return refuse(reply);
      const opened = await store.open(key);
      if (!opened) {
        return reply.status(404).send(errorBody(CommonErrors.NOT_FOUND, { message: "There is no such job file." }));
      }
      return reply.header("content-length", opened.size).type("application/octet-stream").send(opened.stream);
    });

    // A job's results may be large: the body is cut only when it stops moving.
    app.put(
      LOCAL_JOB_FILE_ROUTE,
      { schema: schema("PUT"), config: { bodyTimeout: "idle" } },
      async (request, reply) => {
        const key = request.params["*"];
        const { expires, signature } = request.query;
        if (!urls.allows(key, "PUT", expires, signature)) return refuse(reply);
        await mkdir(temporaryDir, { recursive: true });
        const temporary = join(temporaryDir, `${randomBytes(8).toString("hex")}.part`);
        try {
          await pipeline(request.raw, createWriteStream(temporary));
          await store.put(key, temporary);
        } finally {
          await rm(temporary, { force: true });
        }
        return reply.status(200).send(null);
      },
    );
  };
}
