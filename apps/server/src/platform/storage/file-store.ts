import { createReadStream } from "node:fs";
import { copyFile, mkdir, rename, rm, stat } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import type { Readable } from "node:stream";
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import type { Config } from "../config";

/**
 * Where result files live (ARCHITECTURE §1): keys are `/`-separated paths such as
 * `system-executions/<id>/energies.csv`. Reads are streams, so a large file never sits in memory.
 */
export interface FileStore {
  /** Copies a local file into the store under `key`; answers its size in bytes. */
  put(key: string, sourcePath: string): Promise<number>;
  /** A stream of the stored file, or undefined when there is no such key. */
  open(key: string): Promise<{ stream: Readable; size: number } | undefined>;
  /** Removes every file under the prefix (e.g. one execution's results). */
  removePrefix(prefix: string): Promise<void>;
}

/** The embedded default: files under `<dataDir>/files`. */
export class LocalFileStore implements FileStore {
  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  async put(key: string, sourcePath: string): Promise<number> {
    const target = this.pathOf(key);
    await mkdir(dirname(target), { recursive: true });
    // Copy to a temporary name, then rename: a reader never sees half a file.
    const partial = `${target}.partial`;
    await copyFile(sourcePath, partial);
    await rename(partial, target);
    return (await stat(target)).size;
  }

  async open(key: string): Promise<{ stream: Readable; size: number } | undefined> {
    const path = this.pathOf(key);
    try {
      const { size } = await stat(path);
      return { stream: createReadStream(path), size };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  }

  async removePrefix(prefix: string): Promise<void> {
    await rm(this.pathOf(prefix), { recursive: true, force: true });
  }

  /** Keys never escape the root (no `..`, no absolute paths). */
  private pathOf(key: string): string {
    const path = resolve(join(this.root, key));
    if (!path.startsWith(this.root + sep)) throw new Error(`Invalid file store key: ${key}`);
    return path;
  }
}

/** S3 or any S3-compatible store (ARCHITECTURE §1), when the S3_* settings name a bucket. */
export class S3FileStore implements FileStore {
  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
  ) {}

  async put(key: string, sourcePath: string): Promise<number> {
    const { size } = await stat(sourcePath);
    await this.client.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: createReadStream(sourcePath), ContentLength: size }),
    );
    return size;
  }

  async open(key: string): Promise<{ stream: Readable; size: number } | undefined> {
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return { stream: object.Body as Readable, size: object.ContentLength ?? 0 };
    } catch (error) {
      if (error instanceof NoSuchKey) return undefined;
      throw error;
    }
  }

  async removePrefix(prefix: string): Promise<void> {
    let continuationToken: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: `${prefix}/`, ContinuationToken: continuationToken }),
      );
      const keys = (page.Contents ?? []).flatMap((object) => (object.Key ? [{ Key: object.Key }] : []));
      if (keys.length > 0) {
        await this.client.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: keys } }));
      }
      continuationToken = page.NextContinuationToken;
    } while (continuationToken);
  }
}

/** S3 when a bucket is configured, else the local store under `<dataDir>/files`. */
export function createFileStore(config: Config): FileStore {
  const { s3 } = config;
  if (!s3.bucket) return new LocalFileStore(join(config.dataDir, "files"));
  const client = new S3Client({
    endpoint: s3.endpoint,
    region: s3.region ?? "us-east-1",
    // S3-compatible servers (MinIO, LocalStack) answer on path-style URLs.
    forcePathStyle: Boolean(s3.endpoint),
    // Checksums only where S3 requires them: S3-compatible stores do not all read the chunked
    // checksum trailer the SDK would otherwise add to streamed uploads.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    ...(s3.accessKeyId && s3.secretAccessKey
      ? { credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } }
      : {}),
  });
  return new S3FileStore(client, s3.bucket);
}
