import { CommonErrors } from "@polyforge/contracts/errors";
import { beforeAll, describe, expect, it } from "vitest";
import { useTestApp } from "./support/app";
import { databaseKinds } from "./support/database";
import { userClaims } from "./support/tokens";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

/** Methods a path is not served with answered 404 (PUT on a list, POST on /users/account), and a
 * refused sign-in could be kept by a browser or proxy. */
describe.each(databaseKinds())("methods and refusals of the API on %s", (kind) => {
  const t = useTestApp(kind);
  let token: string;
  beforeAll(async () => {
    token = await t.issuer.sign(userClaims());
  });

  it("answers 405 with Allow for every method a documented path does not serve", async () => {
    const doc = (await t.app.inject({ method: "GET", url: "/api/docs/openapi.json" })).json();
    const id = "00000000-0000-4000-8000-000000000000";
    let refusals = 0;
    for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      const documented = Object.keys(operations).map((method) => method.toUpperCase());
      const allowed = new Set([...documented, ...(documented.includes("GET") ? ["HEAD"] : [])]);
      const url = path.replace(/\{[^}]+\}/g, id);
      for (const method of METHODS.filter((m) => !documented.includes(m))) {
        const response = await t.app.inject({ method, url, headers: { authorization: `Bearer ${token}` } });
        expect(response.statusCode, `${method} ${path}`).toBe(405);
        expect(new Set(String(response.headers.allow).split(", ")), `${method} ${path}`).toEqual(allowed);
        expect(response.json().errors[0].error_code).toBe(CommonErrors.VALIDATION_ERROR);
        refusals++;
      }
    }
    expect(refusals).toBeGreaterThan(40);
    // Without a token, too; unknown paths stay 404, and unknown methods 405 everywhere.
    const anonymous = await t.app.inject({ method: "PUT", url: "/api/v2/projects" });
    expect(anonymous.statusCode).toBe(405);
    expect(anonymous.headers.allow).toBe("GET, HEAD, POST");
    const trailing = await t.app.inject({
      method: "PATCH",
      url: "/api/v2/projects/",
      headers: { authorization: `Bearer ${token}` },
    });
    expect(trailing.statusCode).toBe(405);
    expect((await t.app.inject({ method: "PUT", url: "/api/v2/nothing-here" })).statusCode).toBe(404);
    expect((await t.app.inject({ method: "GET", url: "/api/v2/nothing-here" })).statusCode).toBe(404);
    const trace = await t.app.inject({ method: "TRACE" as "GET", url: "/api/v2/projects" });
    expect(trace.statusCode).toBe(405);
    expect(trace.headers.allow).toBe("GET, HEAD, POST");
    // Served methods are unaffected.
    const list = await t.app.inject({
      method: "GET",
      url: "/api/v2/projects",
      headers: { authorization: `Bearer ${token}` },
    });
    expect(list.statusCode).toBe(200);
  });

  it("answers every 401 with Cache-Control: no-store", async () => {
    for (const headers of [{}, { authorization: "Bearer not-a-token" }, { authorization: "Basic abc" }]) {
      const response = await t.app.inject({ method: "GET", url: "/api/v2/projects", headers });
      expect(response.statusCode).toBe(401);
      expect(response.headers["cache-control"]).toBe("no-store");
    }
    const socket = await t.app.inject({ method: "GET", url: "/api/v2/notifications/?token=nope" });
    expect(socket.statusCode).toBe(401);
    expect(socket.headers["cache-control"]).toBe("no-store");
  });
});
