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

/** GET /config.json (ARCHITECTURE §4): identity provider settings, flags and the docs site. */
const appConfigSchema = z.object({
  identity: z.union([keycloakServer, genericOidcProvider]),
  flags: flagsConfig.optional(),
  docsUrl: z.string().optional(),
});

export type IdentityConfig = z.infer<typeof appConfigSchema>["identity"];
export type AppConfig = z.infer<typeof appConfigSchema>;

/** The file is flat (`{oidcProvider, clientId, flags, docsUrl}`); identity settings are picked out of it. */
export function parseAppConfig(raw: unknown): AppConfig {
  const body = z.record(z.string(), z.unknown()).parse(raw);
  const { flags, docsUrl, ...identity } = body;
  return appConfigSchema.parse({ identity, flags, docsUrl });
}

export async function loadAppConfig(): Promise<AppConfig> {
  const response = await fetch("/config.json", { headers: { Accept: "application/json" } });
  if (!response.ok) throw new Error(`GET /config.json answered ${response.status}`);
  return parseAppConfig(await response.json());
}
