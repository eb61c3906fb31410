import { Transform, type TransformCallback } from "node:stream";
import { Worker } from "node:worker_threads";

/**
 * MD5 of upload parts (their ETags, as S3's) off the server's event loop. MD5 runs at ~250 MB/s on
 * one core here, so hashing a part stream on the main thread caps an upload near that and stalls
 * every other request meanwhile; one worker thread hashes every part stream instead (plain
 * JavaScript, evaluated as is: no loader needed in the worker).
 */
const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
const { createHash } = require("node:crypto");
const hashes = new Map();
const ACK_BYTES = 1 << 20;
parentPort.on("message", (message) => {
  const { id } = message;
  if (message.chunk) {
    let entry = hashes.get(id);
    if (!entry) hashes.set(id, (entry = { hash: createHash("md5"), unacked: 0 }));
    entry.hash.update(message.chunk);
    entry.unacked += message.chunk.byteLength;
    if (entry.unacked >= ACK_BYTES) {
      parentPort.postMessage({ id, hashed: entry.unacked });
      entry.unacked = 0;
    }
  } else if (message.end) {
    const entry = hashes.get(id);
    hashes.delete(id);
    parentPort.postMessage({ id, hashed: entry ? entry.unacked : 0, digest: (entry ? entry.hash : createHash("md5")).digest("hex") });
  } else if (message.drop) {
    hashes.delete(id);
  }
});
`;

/** Bytes a stream may have sent to the worker and not yet seen hashed before it waits. */
const MAX_PENDING_BYTES = 4 * 1024 * 1024;

interface Pending {
  onHashed(bytes: number): void;
  onDigest(digest: string): void;
  onFail(error: Error): void;
}

let worker: Worker | undefined;
let nextId = 1;
const streams = new Map<number, Pending>();

function hashWorker(): Worker {
  if (worker) return worker;
  const started = new Worker(WORKER_SOURCE, { eval: true });
  // An idle server does not stay up for the worker's sake.
  started.unref();
  started.on("message", (message: { id: number; hashed: number; digest?: string }) => {
    const pending = streams.get(message.id);
    if (!pending) return;
    pending.onHashed(message.hashed);
    if (message.digest !== undefined) {
      streams.delete(message.id);
      pending.onDigest(message.digest);
    }
  });
  // A worker that dies fails the parts it was hashing (each answers an error, the client sends it
  // again); the next part starts a new worker.
  const fail = (error: Error) => {
    if (worker === started) worker = undefined;
    for (const pending of streams.values()) pending.onFail(error);
    streams.clear();
  };
  started.on("error", fail);
  started.on("exit", () => fail(new Error("The part hash worker stopped.")));
  worker = started;
  return started;
}

/**
 * A pass-through stream that also sends every chunk to the hash worker; `digest()` answers the
 * MD5 (hex) once the stream has ended. The stream waits when the worker lags by more than a few
 * MB, so memory stays bounded whatever the upload's speed.
 */
export class Md5PassThrough extends Transform {
  private readonly id = nextId++;
  private readonly worker = hashWorker();
  private pendingBytes = 0;
  private waiting: TransformCallback | undefined;
  private flushed = false;
  private readonly result: Promise<string>;

  constructor() {
    super();
    let resolveDigest: (digest: string) => void = () => undefined;
    let rejectDigest: (error: Error) => void = () => undefined;
    this.result = new Promise<string>((resolve, reject) => {
      resolveDigest = resolve;
      rejectDigest = reject;
    });
    // Unobserved until digest() is called; a failed stream reports its error through the pipeline.
    this.result.catch(() => undefined);
    streams.set(this.id, {
      onHashed: (bytes) => {
        this.pendingBytes -= bytes;
        const resume = this.waiting;
        if (resume && this.pendingBytes <= MAX_PENDING_BYTES) {
          this.waiting = undefined;
          resume();
        }
      },
      onDigest: resolveDigest,
      onFail: (error) => {
        rejectDigest(error);
        this.destroy(error);
      },
    });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    // A copy of exactly this chunk, handed over (a pooled Buffer's whole backing store would be
    // copied otherwise); the chunk itself goes on downstream.
    const copy = new Uint8Array(chunk);
    this.worker.postMessage({ id: this.id, chunk: copy }, [copy.buffer]);
    this.pendingBytes += chunk.length;
    this.push(chunk);
    if (this.pendingBytes > MAX_PENDING_BYTES) this.waiting = callback;
    else callback();
  }

  override _flush(callback: TransformCallback): void {
    this.flushed = true;
    this.worker.postMessage({ id: this.id, end: true });
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // Destroyed before its end (a failed or refused part): the worker forgets its hash.
    if (!this.flushed && streams.delete(this.id)) this.worker.postMessage({ id: this.id, drop: true });
    callback(error);
  }

  /** The MD5 of everything that passed (hex), once the stream has ended. */
  digest(): Promise<string> {
    return this.result;
  }
}
