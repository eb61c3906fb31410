import type { FlagName } from "@polyforge/contracts/flags";
import type { QueryClient } from "@tanstack/react-query";

/** What every route can read: the query cache, feature flags (for gated routes) and the docs link. */
export interface RouterContext {
  queryClient: QueryClient;
  flags: { isOn: (flag: FlagName) => boolean };
  docsUrl: string;
}
