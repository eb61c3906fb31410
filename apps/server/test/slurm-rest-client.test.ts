import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SlurmRestClient } from "../src/platform/jobs/slurm/rest-client";

/**
 * The slurmrestd client's lookup by name (issue 26, the crash window between submitting and
 * recording the id) against a stand-in that answers GET /jobs as slurmrestd 0.0.38 does. The real
 * slurmrestd is exercised in slurm.test.ts and slurm-store-transfer.test.ts.
 */
describe("slurmrestd: a job found by its name", () => {
  let server: Server;
  let url: string;
  const requests: Array<{ path: string | undefined; user: unknown; token: unknown }> = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      requests.push({
        path: request.url,
        user: request.headers["x-slurm-user-name"],
        token: request.headers["x-slurm-user-token"],
      });
      response.setHeader("content-type", "application/json");
      response.end(
        JSON.stringify({
          jobs: [
            { job_id: 7, name: "polyforge-a", job_state: "COMPLETED", state_reason: "None", exit_code: 0 },
            { job_id: 12, name: "polyforge-a", job_state: "PENDING", state_reason: "Priority" },
            { job_id: 9, name: "polyforge-b", job_state: "RUNNING", state_reason: "None" },
          ],
          errors: [],
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("answers the newest job of that name, with its state and reason, or none", async () => {
    const client = new SlurmRestClient({ url, user: "polyforge", jwt: "token", jwtFile: undefined });
    expect(await client.findByName("polyforge-a")).toMatchObject({ id: "12", state: "PENDING", reason: "Priority" });
    expect(await client.findByName("polyforge-b")).toMatchObject({ id: "9", state: "RUNNING", reason: null });
    expect(await client.findByName("polyforge-c")).toBeUndefined();
    expect(requests.at(-1)).toEqual({ path: "/slurm/v0.0.38/jobs", user: "polyforge", token: "token" });
  });
});
