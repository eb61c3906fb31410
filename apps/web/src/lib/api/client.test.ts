import { BuildingBlockErrors, CommonErrors, UserErrors } from "@polyforge/contracts/errors";
import { buildQueryString, createApiClient } from "./client";
import { errorMessage, ProductError } from "./productError";

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

function setup(responses: Array<Response | Error>) {
  const calls: Array<{ url: string; init: RequestInit }> = [];
  const delays: number[] = [];
  let tokenCount = 0;
  const client = createApiClient({
    getToken: async () => `token-${++tokenCount}`,
    fetchImpl: async (input, init) => {
      calls.push({ url: String(input), init: init ?? {} });
      const next = responses.shift();
      if (!next) throw new Error("no more responses");
      if (next instanceof Error) throw next;
      return next;
    },
    sleep: async (ms) => {
      delays.push(ms);
    },
  });
  return { client, calls, delays };
}

describe("api client retries", () => {
  it("retries network errors with exponential back-off and then succeeds", async () => {
    const { client, calls, delays } = setup([
      new TypeError("Failed to fetch"),
      new TypeError("Failed to fetch"),
      json(200, { ok: true }),
    ]);
    await expect(client.get("/things")).resolves.toEqual({ ok: true });
    expect(calls).toHaveLength(3);
    expect(delays).toEqual([50, 100]);
  });

  it("retries 5xx answers at most 5 times, then reports the server's error", async () => {
    const failure = () => json(503, { errors: [{ error_code: CommonErrors.INTERNAL_SERVER_ERROR }] });
    const { client, calls, delays } = setup([failure(), failure(), failure(), failure(), failure(), failure()]);
    const error = await client.get("/things").catch((e: unknown) => e);
    expect(calls).toHaveLength(6);
    expect(delays).toEqual([50, 100, 200, 400, 800]);
    expect(error).toBeInstanceOf(ProductError);
    expect((error as ProductError).code).toBe(CommonErrors.INTERNAL_SERVER_ERROR);
    expect((error as ProductError).status).toBe(503);
  });

  it("never retries 4xx answers", async () => {
    const { client, calls, delays } = setup([
      json(404, { errors: [{ error_code: BuildingBlockErrors.GET_NOT_FOUND }] }),
      json(200, {}),
    ]);
    await expect(client.get("/building_blocks/x")).rejects.toMatchObject({
      code: BuildingBlockErrors.GET_NOT_FOUND,
      status: 404,
      message: "The building block was not found.",
    });
    expect(calls).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it("turns a network failure that outlasts the retries into a generic product error", async () => {
    const down = () => new TypeError("Failed to fetch");
    const { client, calls } = setup([down(), down(), down(), down(), down(), down()]);
    await expect(client.get("/x")).rejects.toMatchObject({ code: CommonErrors.UNKNOWN_ERROR, status: null });
    expect(calls).toHaveLength(6);
  });

  it("sends a fresh bearer token with every attempt", async () => {
    const { client, calls } = setup([json(502, {}), json(200, {})]);
    await client.get("/x");
    const auth = calls.map((c) => (c.init.headers as Record<string, string>).Authorization);
    expect(auth).toEqual(["Bearer token-1", "Bearer token-2"]);
  });
});

describe("api client requests", () => {
  it("prefixes /api/v2, repeats array params and sends JSON bodies as given", async () => {
    const { client, calls } = setup([json(200, { id: "1" })]);
    await client.put(
      "/users/account",
      { first_name: "Ada" },
      { query: { type: ["linear", "dendrimer"], page_num: 1 } },
    );
    expect(calls[0]?.url).toBe("/api/v2/users/account?type=linear&type=dendrimer&page_num=1");
    expect(calls[0]?.init.method).toBe("PUT");
    expect(calls[0]?.init.body).toBe('{"first_name":"Ada"}');
  });

  it("answers null for an empty 204", async () => {
    const { client } = setup([new Response(null, { status: 204 })]);
    await expect(client.delete("/x")).resolves.toBeNull();
  });

  it("leaves empty query values out", () => {
    expect(buildQueryString({ name: "", type: undefined, archived: false })).toBe("?archived=false");
    expect(buildQueryString(undefined)).toBe("");
  });
});

describe("error mapping", () => {
  it("looks the message up by code and interpolates camel-cased args", async () => {
    const { client } = setup([json(400, { errors: [{ error_code: UserErrors.UPDATE_PASSWORD_FAILED, args: {} }] })]);
    await expect(client.put("/users/password", {})).rejects.toMatchObject({
      message: "There was an error updating your password",
    });
  });

  it("camel-cases args", () => {
    const error = new ProductError({ error_code: CommonErrors.VALIDATION_ERROR, args: { field_name: "name" } }, 400);
    expect(error.args).toEqual({ fieldName: "name" });
  });

  it("maps an unparseable body to UNKNOWN_ERROR", async () => {
    const { client } = setup([new Response("<html>bad gateway</html>", { status: 400 })]);
    await expect(client.get("/x")).rejects.toMatchObject({
      code: CommonErrors.UNKNOWN_ERROR,
      message: "Something went wrong",
    });
  });

  it("uses the default message for a code the catalogue does not know", async () => {
    const { client } = setup([json(409, { errors: [{ error_code: "SYSTEM.SOMETHING.NEW" }] })]);
    await expect(client.get("/x")).rejects.toMatchObject({
      code: "SYSTEM.SOMETHING.NEW",
      message: "Please try again or contact support if the problem persists",
    });
  });
});

describe("errorMessage", () => {
  it("shows a product error's catalogue message and a generic one for anything else", () => {
    const error = new ProductError({ error_code: UserErrors.UPDATE_USER_INFO_FAILED }, 500);
    expect(errorMessage(error)).toBe("There was an error updating your account info");
    expect(errorMessage(new TypeError("x is undefined"))).toBe(
      "Please try again or contact support if the problem persists",
    );
  });
});
