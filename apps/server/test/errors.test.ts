import { CommonErrors } from "@polyforge/contracts/errors";
import Fastify from "fastify";
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { AppError, installErrorHandling, sendNotFound } from "../src/platform/errors";

// A minimal Fastify with only the error handling under test and routes that fail in each way.
const app = Fastify({ logger: false }).withTypeProvider<ZodTypeProvider>();
app.setValidatorCompiler(validatorCompiler);
app.setSerializerCompiler(serializerCompiler);
installErrorHandling(app);
app.setNotFoundHandler((_request, reply) => sendNotFound(reply));
app.post(
  "/items/:id",
  {
    schema: {
      params: z.object({ id: z.uuid() }),
      body: z.object({ name: z.string().min(1, "Required field"), tags: z.array(z.string()).optional() }),
    },
  },
  async () => ({ ok: true }),
);
app.get("/app-error", async () => {
  throw new AppError(404, "USER.GET.NOT_FOUND", { user_id: "x" });
});
app.get("/crash", async () => {
  throw new Error("secret internals: connection string postgres://admin:pw@db");
});

beforeAll(() => app.ready());
afterAll(() => app.close());

const ID = "8d7c6a4e-1f0b-4a7e-9a43-6a1f2b3c4d5e";

describe("error envelope", () => {
  it("maps a body that fails its schema to 400 VALIDATION with the field and message", async () => {
    const res = await app.inject({ method: "POST", url: `/items/${ID}`, payload: { name: "" } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      errors: [{ error_code: CommonErrors.VALIDATION_ERROR, args: { field: "name", message: "Required field" } }],
    });
  });

  it("names nested fields with dots", async () => {
    const res = await app.inject({ method: "POST", url: `/items/${ID}`, payload: { name: "a", tags: ["ok", 3] } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].args.field).toBe("tags.1");
  });

  it("maps a bad path parameter to 400 with its name", async () => {
    const res = await app.inject({ method: "POST", url: "/items/not-a-uuid", payload: { name: "a" } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ error_code: CommonErrors.VALIDATION_ERROR, args: { field: "id" } });
  });

  it("maps malformed JSON to 400 VALIDATION on the body", async () => {
    const res = await app.inject({
      method: "POST",
      url: `/items/${ID}`,
      headers: { "content-type": "application/json" },
      payload: '{"name": "a",',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      errors: [{ error_code: CommonErrors.VALIDATION_ERROR, args: { field: "body", message: "Malformed JSON body" } }],
    });
  });

  it("answers an AppError with its status, code and args", async () => {
    const res = await app.inject({ method: "GET", url: "/app-error" });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ errors: [{ error_code: "USER.GET.NOT_FOUND", args: { user_id: "x" } }] });
  });

  it("answers anything else with 500 INTERNAL_SERVER_ERROR and leaks nothing", async () => {
    const res = await app.inject({ method: "GET", url: "/crash" });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ errors: [{ error_code: CommonErrors.INTERNAL_SERVER_ERROR, args: {} }] });
    expect(res.body).not.toContain("secret");
  });

  it("answers an unknown path with 404 ROUTE.NOT_FOUND", async () => {
    const res = await app.inject({ method: "GET", url: "/nowhere?x=1" });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ errors: [{ error_code: CommonErrors.NOT_FOUND, args: { path: "/nowhere" } }] });
  });
});
