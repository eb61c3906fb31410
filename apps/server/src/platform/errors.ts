import { NUL_MESSAGE, nulCharacterPath } from "@polyforge/contracts/bounds";
import { type ApiErrorBody, CommonErrors, type ErrorCode } from "@polyforge/contracts/errors";
import type { RuleProblem } from "@polyforge/contracts/segments";
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

/** 400 VALIDATION_ERROR for one field the schema could not judge (a rule across fields, a lookup). */
export function validationError(field: string, message: string): AppError {
  return new AppError(400, CommonErrors.VALIDATION_ERROR, { field, message });
}

/** A broken SPEC §5 rule as the client sees it: 400 with its code and args. */
export function ruleError(problem: RuleProblem): AppError {
  return new AppError(400, problem.code, problem.args ?? {});
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

  if (isDiskFull(error)) {
    return {
      statusCode: 507,
      body: errorBody(CommonErrors.STORAGE_FULL, { message: "The server's disk is full. Try again later." }),
    };
  }

  const rejected = databaseRejection(error);
  if (rejected) return { statusCode: 400, body: errorBody(CommonErrors.VALIDATION_ERROR, { message: rejected }) };

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

/** PostgreSQL's codes for a value it cannot take (a NUL in text, a number out of its column's range,
 * text that is not of the column's type): the client sent it, so it is a 400, not a fault. A schema
 * should have refused the value first; this is the net under every route. */
const REJECTED_VALUE_CODES: Record<string, string> = {
  "22021": NUL_MESSAGE,
  "22P05": NUL_MESSAGE,
  "22003": "A number is out of range",
  "22P02": "A value has the wrong format",
};

/** The disk (or the server's quota on it) is full: nothing the client did wrong, nothing broken
 * in the server either; what was stored before stays, and the call can be made again later. */
function isDiskFull(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (code === "ENOSPC" || code === "EDQUOT") return true;
  }
  return false;
}

function databaseRejection(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && code in REJECTED_VALUE_CODES) return REJECTED_VALUE_CODES[code];
  }
  return undefined;
}

/** What the log keeps of an error: its name, message, code and stack, and its causes', but never
 * a failed query's parameters (user data, password hashes, tokens). */
export function toLoggableError(error: unknown, depth = 0): Record<string, unknown> {
  if (!(error instanceof Error)) return { message: String(error) };
  const { query, code } = error as { query?: unknown; code?: unknown };
  // Drizzle's message repeats the parameters after the statement.
  const message = typeof query === "string" ? `Failed query: ${query}` : error.message;
  return {
    type: error.name,
    message,
    ...(typeof code === "string" ? { code } : {}),
    stack: error.stack?.replace(error.message, message),
    ...(error.cause !== undefined && depth < 4 ? { cause: toLoggableError(error.cause, depth + 1) } : {}),
  };
}

/** Answers an error in the envelope (and logs a fault). */
function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const { statusCode, body } = toErrorResponse(error);
  if (statusCode >= 500) request.log.error({ err: toLoggableError(error) }, "request failed");
  // A refusal that ends at a known time says when (429 of a limit, a suspension).
  const retryAfter = error instanceof AppError ? error.args.retry_after_seconds : undefined;
  if (typeof retryAfter === "number") reply.header("retry-after", String(retryAfter));
  return reply.status(statusCode).send(body);
}

/** Throws the resource's 404 AppError when the caller may not see the resource a path id names
 * (e.g. the module's own get), and nothing otherwise. */
export type PathIdCheck = (request: FastifyRequest, id: string) => Promise<unknown>;

/** Refusals of what a request sends (its body, query or media type) rather than of who sends it. */
const isRefusalOfInput = (status: number) => status >= 400 && status < 500 && ![401, 403, 404, 429].includes(status);

/**
 * For a scope of routes whose path names the caller's resources (`:systemId`…): a request refused
 * for what it sends (a body or query its schema refuses, a route's own 400, a body too large) on an
 * id the caller may not see answers that id's 404, as a valid request would. Another user's id
 * never answers anything but 404, whatever else is wrong with the request; the check runs on
 * refusals only, so an accepted request pays nothing for it.
 */
export function checkPathIdsOnRefusal(app: FastifyInstance, checks: Record<string, PathIdCheck>): void {
  app.setErrorHandler(async (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    if (isRefusalOfInput(toErrorResponse(error).statusCode)) {
      const params = (request.params ?? {}) as Record<string, unknown>;
      for (const [name, check] of Object.entries(checks)) {
        const id = params[name];
        if (typeof id !== "string") continue;
        try {
          await check(request, id);
        } catch (notFound) {
          if (notFound instanceof AppError && notFound.statusCode === 404) return sendError(notFound, request, reply);
        }
      }
    }
    return sendError(error, request, reply);
  });
}

/** Installs the envelope for thrown errors and for unknown /api paths, and the guard that refuses a
 * NUL character anywhere in a request (body, query, path) before any route's schema runs. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(sendError);
  app.addHook("preValidation", async (request) => {
    for (const [part, value] of [
      ["params", request.params],
      ["query", request.query],
      ["body", request.body],
    ] as const) {
      const path = nulCharacterPath(value);
      if (path !== null) {
        throw new AppError(400, CommonErrors.VALIDATION_ERROR, { field: path || part, message: NUL_MESSAGE });
      }
    }
  });
}

export function sendNotFound(reply: FastifyReply): FastifyReply {
  return reply.status(404).send(errorBody(CommonErrors.NOT_FOUND, { path: reply.request.url.split("?")[0] }));
}
