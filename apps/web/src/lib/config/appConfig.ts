import { DEFAULT_JOB_LIMITS, jobLimitsSchema } from "@polyforge/contracts/job-limits";
import { queryOptions } from "@tanstack/react-query";
import { z } from "zod";

/** Where the docs link points when /config.json names no documentation site. */
/** The user guide this server serves (docs/guide, built by `make docs`); DOCS_URL may name another. */
export const DEFAULT_DOCS_URL = "/docs/";

const flagsConfig = z.object({
  apiHost: z.string().optional(),
  clientKey: z.string().min(1),
});

const keycloakServer = z.object({ url: z.string().min(1), realm: z.string().min(1), clientId: z.string().min(1) });
const genericOidcProvider = z.object({ oidcProvider: z.string().min(1), clientId: z.string().min(1) });

/** GET /config.json (ARCHITECTURE §4): identity provider settings, flags, the docs site and this
 * deployment's job limits (the contracts' defaults from a server that does not send them). */
const appConfigSchema = z.object({
  identity: z.union([keycloakServer, genericOidcProvider]),
  flags: flagsConfig.optional(),
  docsUrl: z.string().optional(),
  jobLimits: jobLimitsSchema.default(DEFAULT_JOB_LIMITS),
});

export type IdentityConfig = z.infer<typeof appConfigSchema>["identity"];
export type AppConfig = z.infer<typeof appConfigSchema>;

/** The file is flat (`{oidcProvider, clientId, flags, docsUrl, jobLimits}`); identity settings are
 * picked out of it. */
export function parseAppConfig(raw: unknown): AppConfig {
  const body = z.record(z.string(), z.unknown()).parse(raw);
  const { flags, docsUrl, jobLimits, ...identity } = body;
  return appConfigSchema.parse({ identity, flags, docsUrl, jobLimits });
}

export async function loadAppConfig(): Promise<AppConfig> {
  const response = await fetch("/config.json", { headers: { Accept: "application/json" } });
  if (!response.ok) throw new Error(`GET /config.json answered ${response.status}`);
  return parseAppConfig(await response.json());
}

/** The configuration as a query: read once at startup (main.tsx puts that copy in the cache), kept
 * for the session. */
export const appConfigQuery = queryOptions({
  queryKey: ["config.json"],
  queryFn: loadAppConfig,
  staleTime: Number.POSITIVE_INFINITY,
  gcTime: Number.POSITIVE_INFINITY,
});
