import { jobLimitsSchema } from "@polyforge/contracts/job-limits";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Config } from "../../platform/config";

/** The public client the SPA signs in with (embedded provider and Keycloak realm alike). */
export const WEB_CLIENT_ID = "polyforge-web";

const clientConfig = z.object({
  oidcProvider: z.string().optional(),
  url: z.string().optional(),
  realm: z.string().optional(),
  clientId: z.string(),
  flags: z.object({ apiHost: z.string(), clientKey: z.string() }),
  docsUrl: z.string().optional(),
  jobLimits: jobLimitsSchema,
});

/** A Keycloak realm URL: `<base>/realms/<realm>` (base may end in /auth on older Keycloaks). */
const KEYCLOAK_REALM_URL = /^(?<url>.+)\/realms\/(?<realm>[^/]+)$/;

/** The SPA's identity settings (ARCHITECTURE §4): `{url, realm, clientId}` for a Keycloak realm,
 * `{oidcProvider, clientId}` for any other OpenID provider, the embedded one included. */
export function identityClientConfig(issuer: string, external: boolean) {
  const keycloak = external ? KEYCLOAK_REALM_URL.exec(issuer)?.groups : undefined;
  if (keycloak?.url && keycloak.realm) return { url: keycloak.url, realm: keycloak.realm, clientId: WEB_CLIENT_ID };
  return { oidcProvider: issuer, clientId: WEB_CLIENT_ID };
}

/** GET /config.json, read by the SPA before anything else; with this deployment's job limits, so
 * the web forms refuse at the field what the server would refuse. */
export function clientConfigRoutes(config: Config, issuer: string): FastifyPluginAsyncZod {
  const body = {
    ...identityClientConfig(issuer, config.oidcIssuer !== undefined),
    flags: config.flags,
    ...(config.docsUrl ? { docsUrl: config.docsUrl } : {}),
    jobLimits: config.jobLimits,
  };
  return async (app) => {
    app.get(
      "/config.json",
      {
        schema: {
          tags: ["platform"],
          security: [],
          summary: "Settings of the web app",
          response: { 200: clientConfig },
        },
      },
      async (_request, reply) => reply.header("cache-control", "no-cache").send(body),
    );
  };
}
