import { execFile } from "node:child_process";
import { createHmac, timingSafeEqual } from "node:crypto";
import { mkdir, rm } from "node:fs/promises";
import type { Readable } from "node:stream";
import { text } from "node:stream/consumers";
import { promisify } from "node:util";
import { GetObjectCommand, PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import type { Config } from "../../config";
import { createFileStore, type FileStore, s3Client, uploadSigningKey } from "../../storage/file-store";

const execFileAsync = promisify(execFile);

/** Where a Slurm job's files wait in the file store: `slurm-jobs/{job name}/…`. */
export const JOB_FILES_PREFIX = "slurm-jobs";
/** How long a job's URLs stay valid: S3's longest (SigV4, 7 days). A job still queued after that
 * cannot fetch its inputs and ends in error with the reason. */
export const JOB_FILE_URL_TTL_SECONDS = 7 * 24 * 3600;
/** The embedded store's answer to presigned GET and PUT (platform/jobs/slurm/transfer-route.ts). */
export const LOCAL_JOB_FILE_ROUTE = "/api/v2/job-files/*";

export type JobFileMethod = "GET" | "PUT";

/** The files of one job in the store. */
export function jobFileKeys(jobName: string) {
  const prefix = `${JOB_FILES_PREFIX}/${jobName}`;
  return {
    prefix,
    inputs: `${prefix}/inputs.tar`,
    events: `${prefix}/events.jsonl`,
    stderr: `${prefix}/engine.err`,
    results: `${prefix}/results.tar`,
  };
}

/** URLs a compute node GETs or PUTs one object of the store at, without any other credential. */
export interface JobFileUrls {
  url(key: string, method: JobFileMethod, ttlSeconds: number): Promise<string>;
}

/** S3 (or an S3-compatible store): presigned URLs, SigV4. */
export class S3JobFileUrls implements JobFileUrls {
  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
  ) {}

  url(key: string, method: JobFileMethod, ttlSeconds: number): Promise<string> {
    const input = { Bucket: this.bucket, Key: key };
    const command = method === "GET" ? new GetObjectCommand(input) : new PutObjectCommand(input);
    return getSignedUrl(this.client, command, { expiresIn: ttlSeconds });
  }
}

/** The embedded store: URLs on this server, signed with its upload signing key (HMAC-SHA256 over
 * the method, the key and the expiry), as the store's part URLs are. */
export class LocalJobFileUrls implements JobFileUrls {
  constructor(
    private readonly publicUrl: string,
    private readonly signingKey: Buffer,
  ) {}

  static fromConfig(config: Config): LocalJobFileUrls {
    return new LocalJobFileUrls(config.publicUrl, uploadSigningKey(config));
  }

  async url(key: string, method: JobFileMethod, ttlSeconds: number): Promise<string> {
    const expires = Math.floor(Date.now() / 1000) + ttlSeconds;
    const path = LOCAL_JOB_FILE_ROUTE.replace("*", key.split("/").map(encodeURIComponent).join("/"));
    return `${this.publicUrl}${path}?method=${method}&expires=${expires}&signature=${this.sign(key, method, expires)}`;
  }

  /** Whether a request carries this server's signature for it, unexpired. */
  allows(key: string, method: JobFileMethod, expires: number, signature: string): boolean {
    if (!key.startsWith(`${JOB_FILES_PREFIX}/`) || key.split("/").includes("..")) return false;
    const expected = Buffer.from(this.sign(key, method, expires), "hex");
    const given = Buffer.from(/^[0-9a-f]{64}$/.test(signature) ? signature : "", "hex");
    return given.length === expected.length && timingSafeEqual(given, expected) && expires * 1000 >= Date.now();
  }

  private sign(key: string, method: JobFileMethod, expires: number): string {
    return createHmac("sha256", this.signingKey).update(`job-file:${method}:${key}:${expires}`).digest("hex");
  }
}

/** The URLs of the configured store: S3 when a bucket is set, else this server's signed URLs. */
export function jobFileUrlsFor(config: Config): JobFileUrls {
  if (!config.s3.bucket) return LocalJobFileUrls.fromConfig(config);
  return new S3JobFileUrls(s3Client(config), config.s3.bucket);
}

/**
 * A Slurm job's files through the file store (POLYFORGE_SLURM_TRANSFER=store): the server packs the
 * job's inputs into the store and hands the node presigned URLs; the node (engine/remote_job.py)
 * sends back its events, stderr and results; the server collects the results from the store into
 * its own work directory (as often as asked: the same files each time) and removes the job's
 * objects once the run is recorded.
 */
export class StoreTransfer {
  constructor(
    readonly store: FileStore,
    readonly urls: JobFileUrls,
  ) {}

  static fromConfig(config: Config): StoreTransfer {
    return new StoreTransfer(createFileStore(config), jobFileUrlsFor(config));
  }

  /** Whether a job of this name already sent its inputs (a runner got as far as submitting it). */
  async hasInputs(jobName: string): Promise<boolean> {
    const opened = await this.store.open(jobFileKeys(jobName).inputs).catch(() => undefined);
    opened?.stream.destroy();
    return opened !== undefined;
  }

  /** Packs every file of the server's work directory (job.json and what it names) into the store,
   * and answers the manifest the node's remote_job reads. */
  async send(jobName: string, command: string, workdir: string, scratch: string): Promise<Record<string, unknown>> {
    const keys = jobFileKeys(jobName);
    const tarPath = `${workdir}.inputs.tar`;
    try {
      await execFileAsync("tar", ["-cf", tarPath, "-C", workdir, "."]);
      await this.store.put(keys.inputs, tarPath);
    } finally {
      await rm(tarPath, { force: true });
    }
    const ttl = JOB_FILE_URL_TTL_SECONDS;
    return {
      command,
      server_workdir: workdir,
      scratch,
      input_url: await this.urls.url(keys.inputs, "GET", ttl),
      events_url: await this.urls.url(keys.events, "PUT", ttl),
      stderr_url: await this.urls.url(keys.stderr, "PUT", ttl),
      results_url: await this.urls.url(keys.results, "PUT", ttl),
    };
  }

  /** The events the node has sent so far (whole), or undefined before its first. */
  async events(jobName: string): Promise<Buffer | undefined> {
    const opened = await this.store.open(jobFileKeys(jobName).events);
    if (!opened) return undefined;
    const chunks: Buffer[] = [];
    for await (const chunk of opened.stream as Readable) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  async stderr(jobName: string): Promise<string> {
    const opened = await this.store.open(jobFileKeys(jobName).stderr).catch(() => undefined);
    return opened ? text(opened.stream as Readable) : "";
  }

  /** Unpacks the results the node sent into the server's work directory; false when there are none. */
  async collect(jobName: string, workdir: string): Promise<boolean> {
    const tarPath = `${workdir}.results.tar`;
    try {
      const opened = await this.store.open(jobFileKeys(jobName).results);
      opened?.stream.destroy();
      if (!opened) return false;
      await this.store.download(jobFileKeys(jobName).results, tarPath);
      await mkdir(workdir, { recursive: true });
      // --no-same-owner and no absolute names: only files inside the work directory.
      await execFileAsync("tar", ["-xf", tarPath, "-C", workdir, "--no-same-owner", "--no-overwrite-dir"]);
      return true;
    } finally {
      await rm(tarPath, { force: true });
    }
  }

  async discard(jobName: string): Promise<void> {
    await this.store.removePrefix(jobFileKeys(jobName).prefix);
  }
}
