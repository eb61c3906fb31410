import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { smilesChecker } from "../../platform/chemistry/smiles-checker";
import type { Database } from "../../platform/db/database";
import { type EngineStatus, probeEngine } from "../../platform/engine";

const healthResponse = z.object({
  status: z.enum(["ok", "degraded"]),
  database: z.object({ reachable: z.boolean(), kind: z.enum(["pglite", "postgres"]) }),
  engine: z.object({
    found: z.boolean(),
    version: z.string().optional(),
    tools: z.record(z.string(), z.string().nullable()).optional(),
    error: z.string().optional(),
  }),
  /** The RDKit worker that checks SMILES: degraded for a while after a fault (it was restarted). */
  smiles: z.object({
    status: z.enum(["ok", "degraded"]),
    faults: z.number().int(),
    last_fault_at: z.string().optional(),
    last_fault: z.string().optional(),
  }),
});

/** GET /api/health, without sign-in: is the database reachable, is the engine installed. A found
 * engine is remembered (it does not change while we run); a missing one is asked again each time. */
export function healthRoutes(database: Database): FastifyPluginAsyncZod {
  let foundEngine: EngineStatus | undefined;
  return async (app) => {
    app.get(
      "/api/health",
      {
        schema: {
          tags: ["platform"],
          security: [],
          summary: "Database and engine status",
          response: { 200: healthResponse, 503: healthResponse },
        },
      },
      async (_request, reply) => {
        const [reachable, engine] = await Promise.all([database.ping(), foundEngine ?? probeEngine()]);
        if (engine.found) foundEngine = engine;
        const smiles = smilesChecker.status();
        const healthy = reachable && engine.found && smiles.status === "ok";
        const body = {
          status: healthy ? ("ok" as const) : ("degraded" as const),
          database: { reachable, kind: database.kind },
          engine,
          smiles,
        };
        return reply.status(reachable ? 200 : 503).send(body);
      },
    );
  };
}
