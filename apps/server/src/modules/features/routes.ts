import { readFile } from "node:fs/promises";
import { CommonErrors } from "@polyforge/contracts/errors";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Config } from "../../platform/config";
import { AppError } from "../../platform/errors";
import { FEATURES_FILE } from "../../platform/paths";

/** The GrowthBook SDK's payload: feature definitions keyed by flag name. */
const featuresPayload = z.looseObject({
  features: z.record(z.string(), z.looseObject({ defaultValue: z.unknown() })),
  dateUpdated: z.string().optional(),
});

/** GET /api/features/{clientKey}: the GrowthBook-format feature file (ARCHITECTURE §1), read on each
 * call so an operator can switch a flag without a restart. */
export function featuresRoutes(config: Config, featuresFile = FEATURES_FILE): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      "/api/features/:clientKey",
      {
        schema: {
          tags: ["platform"],
          security: [],
          summary: "Feature flags (GrowthBook format)",
          params: z.object({ clientKey: z.string() }),
          response: { 200: featuresPayload },
        },
      },
      async (request, reply) => {
        if (request.params.clientKey !== config.flags.clientKey) {
          throw new AppError(404, CommonErrors.NOT_FOUND, { path: request.url });
        }
        const payload = featuresPayload.parse(JSON.parse(await readFile(featuresFile, "utf8")));
        return reply.header("cache-control", "no-cache").send(payload);
      },
    );
  };
}
