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
  /** The bytes of this part sent so far, as the browser sends them. */
  onProgress?: (sentBytes: number) => void;
}

/**
 * One part sent by a direct PUT to its signed URL. XMLHttpRequest, not fetch: only it reports the
 * bytes of a request body as they leave, so the bar moves within a part (a file under 5 MB is one
 * part). The part's ETag response header is what complete needs; an answer without one is a failure
 * (SPEC §7), never a part silently missing later.
 */
export function putPart({ url, body, signal, headers, onProgress }: PutPartOptions): Promise<{ etag: string }> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const request = new XMLHttpRequest();
    const abort = () => request.abort();
    const settle = (outcome: () => void) => {
      signal?.removeEventListener("abort", abort);
      outcome();
    };
    request.open("PUT", browserReachableUrl(url));
    for (const [name, value] of Object.entries(headers ?? {})) request.setRequestHeader(name, value);
    request.upload.addEventListener("progress", (event) => onProgress?.(event.loaded));
    request.addEventListener("abort", () =>
      settle(() => reject(signal?.reason ?? new DOMException("Aborted", "AbortError"))),
    );
    // Status 0: Uppy waits and tries the part again, as for a 5xx.
    request.addEventListener("error", () => settle(() => reject(new PartUploadError("The part could not be sent", 0))));
    request.addEventListener("load", () => settle(() => answered(request, resolve, reject)));
    signal?.addEventListener("abort", abort);
    request.send(body);
  });
}

/** The part's outcome from its answer: its ETag, or why it failed. */
function answered(
  request: XMLHttpRequest,
  resolve: (part: { etag: string }) => void,
  reject: (error: PartUploadError) => void,
): void {
  if (request.status < 200 || request.status >= 300) {
    reject(new PartUploadError(`The part was refused (HTTP ${request.status})`, request.status));
    return;
  }
  const etag = request.getResponseHeader("ETag");
  if (etag) resolve({ etag });
  else reject(new PartUploadError("The part's answer has no ETag header"));
}
