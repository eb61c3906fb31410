import { CommonErrors } from "@polyforge/contracts/errors";
import { MAX_UPLOAD_PARTS } from "@polyforge/contracts/uploads";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { errorBody } from "../errors";
import { LOCAL_PART_ROUTE, type LocalFileStore, PartRequestError } from "./file-store";

const ERROR_CODES: Record<number, string> = {
  403: CommonErrors.FORBIDDEN_POLICY_CHECK_FAILED,
  404: CommonErrors.NOT_FOUND,
  413: CommonErrors.UPLOAD_PART_TOO_LARGE,
};

/**
 * The embedded store's answer to S3's UploadPart (ARCHITECTURE §7b): the browser PUTs a part to the
 * URL `upload/upload_url` handed out. No bearer token: the URL's HMAC signature, bound to the upload
 * id, the part number and an expiry, is the permission, as a presigned S3 URL's is. The body streams
 * to disk as it arrives (a 5 MB part straight to its place in the file, see LocalFileStore.receivePart);
 * the answer carries the part's ETag (quoted, as S3's: its CRC-32 and length, see localEtag).
 */
export function localPartRoute(store: LocalFileStore): FastifyPluginAsyncZod {
  return async (app) => {
    // Whatever the content type, the body is left unread (request.raw) for the handler to stream:
    // no parsed body, so nothing walks or buffers it before the handler.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser("*", (_request, _payload, done) => done(null));
    app.put(
      LOCAL_PART_ROUTE,
      {
        // The part is its bytes as sent, whatever Content-Encoding says (S3 stores them so, and the
        // ETag sums them): the server-wide compression neither decodes the body nor the answer.
        compress: false,
        decompress: false,
        // A part may take minutes on a slow link: it is cut only when it stops moving.
        config: { bodyTimeout: "idle" },
        schema: {
          tags: ["uploads"],
          summary: "Upload one part to a signed part URL (embedded file store)",
          security: [],
          params: z.object({
            uploadId: z.string().max(64),
            partNumber: z.coerce.number().int().min(1).max(MAX_UPLOAD_PARTS),
          }),
          querystring: z.object({ expires: z.coerce.number().int(), signature: z.string().max(128) }),
          response: {
            200: z.null().meta({
              type: "null",
              description: "Stored; the ETag header carries the part's ETag (quoted; send it back at complete)",
              headers: { etag: { type: "string", description: "The part's ETag" } },
            } as Record<string, unknown>),
            403: z.unknown().describe("Wrong or expired signature"),
            404: z.unknown().describe("No such upload"),
            408: z.unknown().describe("The body stopped arriving (no byte for the upload idle timeout)"),
            413: z
              .unknown()
              .describe("A part past the file's last, or more than its share of the file (5 MB, the last the rest)"),
            507: z.unknown().describe("The server's disk is full; the parts stored before are kept"),
          },
        },
      },
      async (request, reply) => {
        const { uploadId, partNumber } = request.params;
        try {
          const limits = await store.checkPartRequest(
            uploadId,
            partNumber,
            request.query.expires,
            request.query.signature,
          );
          const header = request.headers["content-length"];
          const declared = header === undefined ? undefined : Number(header);
          if (declared !== undefined && Number.isFinite(declared) && declared > limits.maxPartBytes) {
            throw new PartRequestError(413, `A part may not exceed ${limits.maxPartBytes} bytes.`);
          }
          const etag = await store.receivePart(
            uploadId,
            partNumber,
            request.raw,
            limits,
            declared !== undefined && Number.isSafeInteger(declared) ? declared : undefined,
          );
          return reply.header("etag", etag).header("access-control-expose-headers", "ETag").status(200).send(null);
        } catch (error) {
          // The client may still be sending: close the connection rather than read the rest.
          reply.header("connection", "close");
          if (!(error instanceof PartRequestError)) throw error;
          return reply
            .status(error.statusCode as 403 | 404 | 413)
            .send(
              errorBody(ERROR_CODES[error.statusCode] ?? CommonErrors.VALIDATION_ERROR, { message: error.message }),
            );
        }
      },
    );
  };
}
