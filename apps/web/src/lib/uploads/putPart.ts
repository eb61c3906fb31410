/** Why a part failed: Uppy retries a part whose error carries a status it deems transient. */
export class PartUploadError extends Error {
  readonly source: { status: number } | undefined;
  constructor(message: string, status?: number) {
    super(message);
    this.name = "PartUploadError";
    this.source = status === undefined ? undefined : { status };
  }
}

/** SPEC §7: a local-stack host name in a signed URL is replaced with localhost. */
export function browserReachableUrl(url: string): string {
  const parsed = new URL(url, window.location.href);
  if (parsed.hostname === "localstack") parsed.hostname = "localhost";
  return parsed.toString();
}

export interface PutPartOptions {
  url: string;
  body: Blob;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/**
 * One part sent by a direct PUT to its signed URL. The part's ETag response header is what complete
 * needs; an answer without one is a failure (SPEC §7), never a part silently missing later.
 */
export async function putPart({ url, body, signal, headers }: PutPartOptions): Promise<{ etag: string }> {
  let response: Response;
  try {
    response = await fetch(browserReachableUrl(url), { method: "PUT", body, signal, headers });
  } catch (error) {
    if (signal?.aborted) throw error;
    // Status 0: Uppy waits and tries the part again, as for a 5xx.
    throw new PartUploadError("The part could not be sent", 0);
  }
  if (!response.ok) throw new PartUploadError(`The part was refused (HTTP ${response.status})`, response.status);
  const etag = response.headers.get("ETag");
  if (!etag) throw new PartUploadError("The part's answer has no ETag header");
  return { etag };
}
