import { QueryClient } from "@tanstack/react-query";

/** SPEC §9: cached query data lives for 2 minutes once nothing uses it. */
const QUERY_CACHE_LIFETIME_MS = 2 * 60 * 1000;

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      // The API client already retries network errors and 5xx answers; a second layer would multiply them.
      queries: { gcTime: QUERY_CACHE_LIFETIME_MS, retry: false, refetchOnWindowFocus: false },
      mutations: { retry: false },
    },
  });
}
