import { freshAccessToken } from "../auth/session";
import { networkProductError, productErrorFromResponse } from "./productError";

/** SPEC §7: calls are retried 5 times, 50 ms then doubling, on network errors and 5xx answers only. */
export const DEFAULT_RETRIES = 5;
export const DEFAULT_RETRY_DELAY_MS = 50;

export const API_PREFIX = "/api/v2";

type QueryValue = string | number | boolean | null | undefined | ReadonlyArray<string | number | boolean>;

export interface RequestOptions {
  query?: Record<string, QueryValue>;
  /** Sent as JSON; fields are snake_case as the contracts define them. */
  body?: unknown;
  /** 'blob' for file downloads; JSON otherwise. */
  responseType?: "json" | "blob";
  signal?: AbortSignal;
  /** Extra request headers (e.g. a create's Idempotency-Key). */
  headers?: Record<string, string>;
}

export interface ApiClientOptions {
  getToken: () => Promise<string>;
  fetchImpl?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  retries?: number;
  retryDelayMs?: number;
}

/** Arrays repeat the key without indexes (`type=a&type=b`); empty values are left out. */
export function buildQueryString(query: Record<string, QueryValue> | undefined): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null || value === "") continue;
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) params.append(key, String(v));
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export function createApiClient(options: ApiClientOptions) {
  const {
    getToken,
    fetchImpl = (input, init) => fetch(input, init),
    sleep = wait,
    retries = DEFAULT_RETRIES,
    retryDelayMs = DEFAULT_RETRY_DELAY_MS,
  } = options;

  async function request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const url = `${API_PREFIX}${path}${buildQueryString(opts.query)}`;
    for (let attempt = 0; ; attempt++) {
      const retryDelay = retryDelayMs * 2 ** attempt;
      const headers: Record<string, string> = {
        ...opts.headers,
        Accept: "application/json",
        Authorization: `Bearer ${await getToken()}`,
      };
      if (opts.body !== undefined) headers["Content-Type"] = "application/json";
      let response: Response;
      try {
        response = await fetchImpl(url, {
          method,
          headers,
          body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
          signal: opts.signal,
        });
      } catch (error) {
        if (opts.signal?.aborted) throw error;
        if (attempt < retries) {
          await sleep(retryDelay);
          continue;
        }
        throw networkProductError();
      }
      if (response.status >= 500 && attempt < retries) {
        await sleep(retryDelay);
        continue;
      }
      if (!response.ok) throw productErrorFromResponse(await readJson(response), response.status);
      if (opts.responseType === "blob") return (await response.blob()) as T;
      return (await readJson(response)) as T;
    }
  }

  return {
    get: <T>(path: string, opts?: RequestOptions) => request<T>("GET", path, opts),
    post: <T>(path: string, body?: unknown, opts?: RequestOptions) => request<T>("POST", path, { ...opts, body }),
    put: <T>(path: string, body?: unknown, opts?: RequestOptions) => request<T>("PUT", path, { ...opts, body }),
    patch: <T>(path: string, body?: unknown, opts?: RequestOptions) => request<T>("PATCH", path, { ...opts, body }),
    delete: <T>(path: string, opts?: RequestOptions) => request<T>("DELETE", path, opts),
  };
}

export type ApiClient = ReturnType<typeof createApiClient>;

/** The app's client: every call carries a bearer token refreshed just before it. */
export const api = createApiClient({ getToken: freshAccessToken });
