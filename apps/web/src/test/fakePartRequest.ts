/**
 * A stand-in for XMLHttpRequest as the part uploader uses it: the PUT goes to the global fetch (the
 * test's fake store answers it), and half the body is reported sent before the answer is awaited, so
 * a test sees progress within a part. Install with `vi.stubGlobal("XMLHttpRequest", FakePartRequest)`.
 */
export class FakePartRequest extends EventTarget {
  readonly upload = new EventTarget();
  status = 0;
  private method = "GET";
  private url = "";
  private readonly headers: Record<string, string> = {};
  private answer: Response | null = null;
  private readonly aborter = new AbortController();

  open(method: string, url: string): void {
    this.method = method;
    this.url = url;
  }

  setRequestHeader(name: string, value: string): void {
    this.headers[name] = value;
  }

  getResponseHeader(name: string): string | null {
    return this.answer?.headers.get(name) ?? null;
  }

  abort(): void {
    this.aborter.abort();
    this.dispatchEvent(new Event("abort"));
  }

  send(body: Blob): void {
    const sent = (loaded: number) =>
      this.upload.dispatchEvent(Object.assign(new Event("progress"), { loaded, total: body.size }));
    sent(Math.floor(body.size / 2));
    fetch(this.url, { method: this.method, body, headers: this.headers, signal: this.aborter.signal }).then(
      (response) => {
        if (this.aborter.signal.aborted) return;
        sent(body.size);
        this.answer = response;
        this.status = response.status;
        this.dispatchEvent(new Event("load"));
      },
      () => {
        if (!this.aborter.signal.aborted) this.dispatchEvent(new Event("error"));
      },
    );
  }
}
