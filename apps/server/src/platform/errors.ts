import { type ApiErrorBody, CommonErrors, type ErrorCode } from "@polyforge/contracts/errors";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";

/** An error meant for the client: an HTTP status and one entry of the error envelope. Throw it
 * from a route, service or hook; the error handler turns it into `{errors: [{error_code, args}]}`. */
export class AppError extends Error {
  override name = "AppError";

  constructor(
    readonly statusCode: number,
    readonly errorCode: ErrorCode,
    readonly args: Record<string, unknown> = {},
    options?: ErrorOptions,
  ) {
    super(errorCode, options);
  }
}

export function errorBody(errorCode: string, args: Record<string, unknown> = {}): ApiErrorBody {
  return { errors: [{ error_code: errorCode, args }] };
}

/** The status and body the client gets for any error thrown while answering a request. */
export function toErrorResponse(error: unknown): { statusCode: number; body: ApiErrorBody } {
  if (error instanceof AppError) return { statusCode: error.statusCode, body: errorBody(error.errorCode, error.args) };

  if (hasZodFastifySchemaValidationErrors(error)) {
    const issue = error.validation[0]!;
    const context = error.validationContext ?? "body";
    return {
      statusCode: 400,
      body: errorBody(CommonErrors.VALIDATION_ERROR, {
        field: fieldName(context, issue.instancePath),
        message: issue.message,
      }),
    };
  }

  const fastifyError = error as Partial<FastifyError>;
  // Fastify's own client errors: malformed JSON, a body that is not JSON, an empty JSON body.
  if (fastifyError.code === "FST_ERR_CTP_INVALID_JSON_BODY" || fastifyError.code === "FST_ERR_CTP_EMPTY_JSON_BODY") {
    return {
      statusCode: 400,
      body: errorBody(CommonErrors.VALIDATION_ERROR, { field: "body", message: "Malformed JSON body" }),
    };
  }
  if (fastifyError.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") {
    return {
      statusCode: 415,
      body: errorBody(CommonErrors.VALIDATION_ERROR, { field: "body", message: "Unsupported content type" }),
    };
  }
  if (fastifyError.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
    return {
      statusCode: 413,
      body: errorBody(CommonErrors.VALIDATION_ERROR, { field: "body", message: "Request body is too large" }),
    };
  }
  if (fastifyError.statusCode === 429) {
    return { statusCode: 429, body: errorBody(CommonErrors.TOO_MANY_REQUESTS) };
  }
  // Other client errors raised by Fastify or a plugin (a forbidden path, an unsupported method…).
  const status = fastifyError.statusCode;
  if (typeof status === "number" && status >= 400 && status < 500) {
    const code = status === 404 ? CommonErrors.NOT_FOUND : CommonErrors.VALIDATION_ERROR;
    return { statusCode: status, body: errorBody(code, { message: fastifyError.message ?? "" }) };
  }
  return { statusCode: 500, body: errorBody(CommonErrors.INTERNAL_SERVER_ERROR) };
}

/** `/segments/0/occurrence` in the body → `segments.0.occurrence`; the whole body or query → its name. */
function fieldName(context: string, instancePath: string): string {
  const path = instancePath.split("/").filter(Boolean).join(".");
  return path || context;
}

/** Installs the envelope for thrown errors and for unknown /api paths. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const { statusCode, body } = toErrorResponse(error);
    if (statusCode >= 500) request.log.error({ err: error }, "request failed");
    return reply.status(statusCode).send(body);
  });
}

export function sendNotFound(reply: FastifyReply): FastifyReply {
  return reply.status(404).send(errorBody(CommonErrors.NOT_FOUND, { path: reply.request.url.split("?")[0] }));
}
