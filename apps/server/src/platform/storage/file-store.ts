import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { once } from "node:events";
import { constants, createReadStream, createWriteStream, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { copyFile, link, mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { crc32 } from "node:zlib";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { UPLOAD_PART_SIZE, type UploadedPart, uploadPartBytes, uploadPartCount } from "@polyforge/contracts/uploads";
import type { Config } from "../config";

/** A part of a multipart upload as the client lists it on complete. */
export interface CompletedPart {
  part_number: number;
  etag: string;
}

/** S3's multipart error codes, answered alike by both stores. */
export type MultipartErrorCode =
  | "NoSuchUpload"
  | "InvalidPart"
  | "InvalidPartOrder"
  | "EntityTooSmall"
  | "EntityTooLarge";

export class MultipartError extends Error {
  override name = "MultipartError";

  constructor(
    readonly code: MultipartErrorCode,
    message: string,
    readonly partNumber?: number,
  ) {
    super(message);
  }
}

/** S3's limit: every part but the last at least 5 MiB. */
export const MIN_PART_BYTES = 5 * 1024 * 1024;
/** How long a part URL stays valid. */
export const PART_URL_TTL_SECONDS = 3600;
/** An upload nothing touched for this long is removed from the embedded store whatever its row says
 * (the counterpart of the S3 lifecycle rule in deploy/s3-lifecycle.json). */
export const ABANDONED_UPLOAD_MS = 24 * 3600_000;

/** ETags compare without their quotes (S3 answers them quoted). */
export function bareEtag(etag: string): string {
  return etag.replace(/"/g, "");
}

/** The parts to assemble, in part-number order (S3's rule); a part listed twice with one ETag counts
 * once, with two different ETags it is an InvalidPart. */
export function normalizeCompletedParts(parts: ReadonlyArray<CompletedPart>): CompletedPart[] {
  const byNumber = new Map<number, CompletedPart>();
  for (const part of parts) {
    const seen = byNumber.get(part.part_number);
    if (seen && bareEtag(seen.etag) !== bareEtag(part.etag)) {
      throw new MultipartError(
        "InvalidPart",
        `Part ${part.part_number} is listed twice with different ETags.`,
        part.part_number,
      );
    }
    byNumber.set(part.part_number, { part_number: part.part_number, etag: bareEtag(part.etag) });
  }
  return [...byNumber.values()].sort((a, b) => a.part_number - b.part_number);
}

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
  /** Streams the stored file into a local file (a job's working copy). */
  download(key: string, targetPath: string): Promise<void>;

  // The S3 multipart protocol (ARCHITECTURE §7b); the object appears under `key` on complete.
  /** CreateMultipartUpload; answers the upload id. `maxBytes` bounds the whole object. */
  createMultipartUpload(key: string, maxBytes: number): Promise<string>;
  /** A URL the client PUTs one part of `partBytes` bytes to, without our token (presigned or signed
   * by the server); no larger body is taken there. */
  partUploadUrl(key: string, uploadId: string, partNumber: number, partBytes: number): Promise<string>;
  /** ListParts: what is stored so far, in part-number order. */
  listParts(key: string, uploadId: string): Promise<UploadedPart[]>;
  /** CompleteMultipartUpload; answers the object's size. A bad part list keeps the parts. */
  completeMultipartUpload(key: string, uploadId: string, parts: ReadonlyArray<CompletedPart>): Promise<number>;
  /** AbortMultipartUpload; an upload already gone is not an error. */
  abortMultipartUpload(key: string, uploadId: string): Promise<void>;
}

/** Where the local store's part URLs point and how they are signed. */
export interface LocalUploadSettings {
  /** The server's public URL (part URLs are absolute, like S3's). */
  publicUrl: string;
  /** HMAC-SHA256 key of the part URLs. */
  signingKey: Buffer;
}

/** The path the local store serves part PUTs on (platform/storage/part-route.ts). */
export const LOCAL_PART_ROUTE = "/api/v2/uploads/:uploadId/parts/:partNumber";

/** Why a part PUT to the local store was refused: an HTTP status and a reason. */
export class PartRequestError extends Error {
  override name = "PartRequestError";

  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

interface LocalUploadMeta {
  key: string;
  max_bytes: number;
  created_at: string;
}

const UPLOAD_ID = /^[0-9a-f]{32}$/;
/** An upload being completed: `.completing-{upload id}.{pid}`, out of reach of parts and of a
 * second complete until it is done (or put back). */
const COMPLETING = ".completing-";

function partTooLarge(partNumber: number, maxPartBytes: number): PartRequestError {
  return new PartRequestError(413, `Part ${partNumber} may hold at most ${maxPartBytes} bytes.`);
}
/**
 * A stored part: `<part number, 5 digits>.<ETag>`, so name and ETag are renamed in at once; the
 * part's bytes are that file, or, for a part written in place (`.placed-<size>`), the range of the
 * upload's assembly file at (part number - 1) × 5 MB. The ETag is `<CRC-32 hex>-<size>` (localEtag),
 * or an MD5 for a part stored before that (an upload resumed across the upgrade).
 */
const PART_FILE = /^(\d{5})\.([0-9a-f]{8}-\d+|[0-9a-f]{32})(?:\.placed-(\d+))?$/;

/**
 * The embedded store's ETag of a part: its CRC-32 (zlib's, several GB/s) and its length, in hex and
 * decimal. S3 leaves an ETag opaque to the client, which only sends it back at complete, where it
 * must match the part stored; MD5 cost a third of the server's time per part (bench/README.md).
 */
export function localEtag(crc: number, size: number): string {
  return `${(crc >>> 0).toString(16).padStart(8, "0")}-${size}`;
}

/** The file parts of the web client's size are written into, each at its own offset. */
const ASSEMBLY_FILE = "assembly";
/** Opened for writing at an offset, created when absent, never truncated. */
const PLACE_FLAGS = constants.O_WRONLY | constants.O_CREAT;

/** The limits of one upload's parts (checkPartRequest). */
export interface PartLimits {
  maxPartBytes: number;
  /** The size the upload was begun with: no part reaches past it. */
  fileBytes: number;
}

interface StoredPart extends UploadedPart {
  /** The part's own file, or undefined when it lies in the assembly file. */
  file?: string;
}

const partName = (partNumber: number) => String(partNumber).padStart(5, "0");

/** The embedded default: files under `<dataDir>/files`. */
export class LocalFileStore implements FileStore {
  private readonly root: string;
  private readonly uploadsRoot: string;
  /** Parts being written in place by this process (`<upload id>:<part number>`). */
  private readonly placing = new Set<string>();

  constructor(
    root: string,
    private readonly uploads: LocalUploadSettings,
  ) {
    this.root = resolve(root);
    // Parts in progress live beside the files, outside any key (keys never start with a dot).
    this.uploadsRoot = join(this.root, ".multipart");
  }

  async download(key: string, targetPath: string): Promise<void> {
    const source = this.pathOf(key);
    await mkdir(dirname(targetPath), { recursive: true });
    // A hard link costs nothing for a 2 GB file; another file system gets a copy.
    await link(source, targetPath).catch(() => copyFile(source, targetPath));
  }

  async createMultipartUpload(key: string, maxBytes: number): Promise<string> {
    this.pathOf(key); // refuses a bad key now rather than on complete
    const uploadId = randomBytes(16).toString("hex");
    const dir = join(this.uploadsRoot, uploadId);
    await mkdir(dir, { recursive: true });
    const meta: LocalUploadMeta = { key, max_bytes: maxBytes, created_at: new Date().toISOString() };
    await writeFile(join(dir, "upload.json"), JSON.stringify(meta));
    return uploadId;
  }

  /** The part's size is not in the URL: the part route reads the file's size from the upload. */
  async partUploadUrl(_key: string, uploadId: string, partNumber: number, _partBytes: number): Promise<string> {
    const expires = Math.floor(Date.now() / 1000) + PART_URL_TTL_SECONDS;
    const path = LOCAL_PART_ROUTE.replace(":uploadId", uploadId).replace(":partNumber", String(partNumber));
    return `${this.uploads.publicUrl}${path}?expires=${expires}&signature=${this.sign(uploadId, partNumber, expires)}`;
  }

  /** Checks a part URL's signature and expiry (403 otherwise); answers the upload's limits. */
  async checkPartRequest(
    uploadId: string,
    partNumber: number,
    expires: number,
    signature: string,
  ): Promise<PartLimits> {
    const expected = Buffer.from(this.sign(uploadId, partNumber, expires), "hex");
    const given = Buffer.from(/^[0-9a-f]{64}$/.test(signature) ? signature : "", "hex");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new PartRequestError(403, "The part URL's signature does not match.");
    }
    if (expires * 1000 < Date.now()) throw new PartRequestError(403, "The part URL has expired.");
    const meta = await this.uploadMeta(uploadId);
    if (!meta) throw new PartRequestError(404, "There is no such upload (completed or cancelled).");
    const maxPartBytes = uploadPartBytes(meta.max_bytes, partNumber);
    if (maxPartBytes === 0) {
      throw new PartRequestError(
        413,
        `Part ${partNumber} is past the last of this ${meta.max_bytes}-byte file's ${uploadPartCount(meta.max_bytes)} parts.`,
      );
    }
    return { maxPartBytes, fileBytes: meta.max_bytes };
  }

  /**
   * Writes one part as it streams in (never whole in memory) and answers its ETag (localEtag: its
   * CRC-32 and length, summed on the event loop as the chunks pass). A part of the web client's size
   * (5 MB, or the rest of the file for the last) whose length is declared goes straight to its place
   * in the assembly file, so complete has nothing to copy; any other part, or a part sent again, gets
   * a file of its own, which replaces the earlier copy. Call checkPartRequest first.
   */
  async receivePart(
    uploadId: string,
    partNumber: number,
    body: Readable,
    limits: PartLimits,
    declaredBytes?: number,
  ): Promise<string> {
    try {
      return await this.storePart(uploadId, partNumber, body, limits, declaredBytes);
    } catch (error) {
      // The upload was completed or cancelled while the part arrived (its directory is gone).
      if ((error as NodeJS.ErrnoException).code === "ENOENT") {
        throw new PartRequestError(404, "There is no such upload (completed or cancelled).");
      }
      throw error;
    }
  }

  private async storePart(
    uploadId: string,
    partNumber: number,
    body: Readable,
    limits: PartLimits,
    declaredBytes?: number,
  ): Promise<string> {
    const dir = join(this.uploadsRoot, uploadId);
    const number = partName(partNumber);
    const offset = (partNumber - 1) * UPLOAD_PART_SIZE;
    const slot = `${uploadId}:${partNumber}`;
    const fitsPlace =
      declaredBytes !== undefined &&
      declaredBytes > 0 &&
      offset + declaredBytes <= limits.fileBytes &&
      (declaredBytes === UPLOAD_PART_SIZE || offset + declaredBytes === limits.fileBytes);
    const inPlace =
      fitsPlace && !this.placing.has(slot) && !(await readdir(dir)).some((name) => name.startsWith(`${number}.`));
    if (inPlace) this.placing.add(slot);
    const temporary = join(dir, `.${number}.${randomBytes(6).toString("hex")}.tmp`);
    let crc = 0;
    let received = 0;
    let etag: string;
    try {
      const target = inPlace
        ? (await open(join(dir, ASSEMBLY_FILE), PLACE_FLAGS)).createWriteStream({ start: offset })
        : createWriteStream(temporary);
      // Counted and summed beside the copy (a second consumer of the same chunks), attached in the
      // same tick as the pipeline so that no chunk flows past before it.
      body.on("data", (chunk: Buffer) => {
        received += chunk.length;
        if (received > limits.maxPartBytes) body.destroy(partTooLarge(partNumber, limits.maxPartBytes));
        else crc = crc32(chunk, crc);
      });
      await pipeline(body, target);
      etag = localEtag(crc, received);
      if (inPlace) {
        if (received !== declaredBytes) throw new Error(`Part ${partNumber}: ${received} of ${declaredBytes} bytes.`);
        await writeFile(join(dir, `${number}.${etag}.placed-${received}`), "");
      } else {
        await rename(temporary, join(dir, `${number}.${etag}`));
      }
    } catch (error) {
      if (!inPlace) await rm(temporary, { force: true });
      throw error;
    } finally {
      if (inPlace) this.placing.delete(slot);
    }
    // The earlier copies of this part (another ETag, or its own file) go.
    const kept = inPlace ? `${number}.${etag}.placed-${received}` : `${number}.${etag}`;
    for (const name of await readdir(dir)) {
      if (name.startsWith(`${number}.`) && name !== kept && PART_FILE.test(name)) {
        await rm(join(dir, name), { force: true });
      }
    }
    return `"${etag}"`;
  }

  async listParts(_key: string, uploadId: string): Promise<UploadedPart[]> {
    try {
      const parts = await this.storedParts(await this.uploadDir(uploadId));
      return parts.map(({ part_number, etag, size }) => ({ part_number, etag, size }));
    } catch (error) {
      // Completed or cancelled as it was being read.
      if ((error as NodeJS.ErrnoException).code === "ENOENT") {
        throw new MultipartError("NoSuchUpload", "There is no such upload.");
      }
      throw error;
    }
  }

  /** The parts on disk, in part-number order. */
  private async storedParts(dir: string): Promise<StoredPart[]> {
    const parts: StoredPart[] = [];
    for (const name of await readdir(dir)) {
      const match = PART_FILE.exec(name);
      if (!match) continue;
      const part_number = Number(match[1]);
      const etag = `"${match[2]}"`;
      if (match[3] !== undefined) parts.push({ part_number, etag, size: Number(match[3]) });
      else parts.push({ part_number, etag, size: (await stat(join(dir, name))).size, file: join(dir, name) });
    }
    return parts.sort((a, b) => a.part_number - b.part_number);
  }

  /**
   * Checks the list against the stored parts, then makes the object: when the parts are 1…n all in
   * place and fill the size begun with, the assembly file is the object (renamed, nothing copied);
   * otherwise the parts are streamed into it one after another. The upload is first taken out of
   * reach by renaming its directory (atomic), so of two completes at once one assembles and the
   * other finds no upload; should assembling fail (a full disk), it is put back, parts and all.
   */
  async completeMultipartUpload(key: string, uploadId: string, parts: ReadonlyArray<CompletedPart>): Promise<number> {
    if (!UPLOAD_ID.test(uploadId)) throw new MultipartError("NoSuchUpload", "There is no such upload.");
    const ordered = normalizeCompletedParts(parts);
    const arriving = [...this.placing].find((slot) => slot.startsWith(`${uploadId}:`));
    if (arriving) {
      const partNumber = Number(arriving.split(":")[1]);
      throw new MultipartError("InvalidPart", `Part ${partNumber} is still arriving.`, partNumber);
    }
    const dir = join(this.uploadsRoot, uploadId);
    const claimed = join(this.uploadsRoot, `${COMPLETING}${uploadId}.${process.pid}`);
    try {
      await rename(dir, claimed);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") {
        throw new MultipartError("NoSuchUpload", "There is no such upload (completed or cancelled).");
      }
      throw error;
    }
    let size: number;
    try {
      size = await this.assemble(key, claimed, ordered);
    } catch (error) {
      await rename(claimed, dir);
      throw error;
    }
    await rm(claimed, { recursive: true, force: true });
    return size;
  }

  /** Makes the object of the upload held in `dir` from the listed parts; answers its size. */
  private async assemble(key: string, dir: string, ordered: CompletedPart[]): Promise<number> {
    const meta = JSON.parse(await readFile(join(dir, "upload.json"), "utf8")) as LocalUploadMeta;
    const stored = new Map((await this.storedParts(dir)).map((part) => [part.part_number, part]));
    const chosen = ordered.map((part, index) => {
      const found = stored.get(part.part_number);
      if (!found || bareEtag(found.etag) !== part.etag) {
        throw new MultipartError(
          "InvalidPart",
          `Part ${part.part_number} was not uploaded or its ETag does not match.`,
          part.part_number,
        );
      }
      if (index < ordered.length - 1 && found.size < MIN_PART_BYTES) {
        throw new MultipartError("EntityTooSmall", `Part ${part.part_number} is smaller than 5 MB.`, part.part_number);
      }
      return found;
    });
    const target = this.pathOf(key);
    await mkdir(dirname(target), { recursive: true });
    const assembly = join(dir, ASSEMBLY_FILE);
    const total = chosen.reduce((sum, part) => sum + part.size, 0);
    const inPlace = chosen.length > 0 && chosen.every((part, index) => !part.file && part.part_number === index + 1);
    if (inPlace && total === meta.max_bytes && (await stat(assembly)).size === total) {
      await rename(assembly, target);
    } else {
      await this.concatenate(chosen, assembly, `${target}.partial`);
      await rename(`${target}.partial`, target);
    }
    return (await stat(target)).size;
  }

  /** The parts, one after another through one write stream, at the pace the disk takes them. */
  private async concatenate(parts: StoredPart[], assembly: string, partial: string): Promise<void> {
    const out = createWriteStream(partial);
    try {
      for (const part of parts) {
        const offset = (part.part_number - 1) * UPLOAD_PART_SIZE;
        const source = part.file
          ? createReadStream(part.file, { highWaterMark: 1024 * 1024 })
          : createReadStream(assembly, { start: offset, end: offset + part.size - 1, highWaterMark: 1024 * 1024 });
        for await (const chunk of source) {
          if (!out.write(chunk)) await once(out, "drain");
        }
      }
      await new Promise<void>((resolvePromise, reject) => {
        out.once("error", reject);
        out.end(() => resolvePromise());
      });
    } catch (error) {
      out.destroy();
      await rm(partial, { force: true });
      throw error;
    }
  }

  /**
   * Tidies what a server killed mid-request left in the store (run at start): a complete cut short
   * gets its upload back, parts and all, and part files still being written (`.tmp`) that have not
   * grown for `staleAfterMs` — longer than a part may stall before it is cut off — are removed.
   */
  async recoverInterruptedUploads(staleAfterMs: number): Promise<void> {
    const now = Date.now();
    for (const name of await readdir(this.uploadsRoot).catch(() => [] as string[])) {
      const path = join(this.uploadsRoot, name);
      if (name.startsWith(COMPLETING)) {
        const [uploadId = "", pid = ""] = name.slice(COMPLETING.length).split(".");
        if (UPLOAD_ID.test(uploadId) && !isOtherLiveProcess(Number(pid))) {
          await rename(path, join(this.uploadsRoot, uploadId)).catch(() => rm(path, { recursive: true, force: true }));
        }
        continue;
      }
      if (!UPLOAD_ID.test(name)) continue;
      for (const entry of await readdir(path).catch(() => [] as string[])) {
        if (!entry.endsWith(".tmp")) continue;
        const modified = await stat(join(path, entry)).then(
          (info) => info.mtimeMs,
          () => now,
        );
        if (now - modified > staleAfterMs) await rm(join(path, entry), { force: true });
      }
    }
  }

  /**
   * Removes uploads nothing has touched for `idleMs` (no part, no URL's worth of activity): the
   * embedded store's counterpart of an S3 lifecycle rule for incomplete multipart uploads. The
   * services abort their own idle uploads long before; this catches those no row names any more.
   */
  async removeAbandonedUploads(idleMs: number): Promise<number> {
    const now = Date.now();
    let removed = 0;
    for (const name of await readdir(this.uploadsRoot).catch(() => [] as string[])) {
      if (!UPLOAD_ID.test(name)) continue;
      const dir = join(this.uploadsRoot, name);
      const entries = await readdir(dir).catch(() => [] as string[]);
      const times = await Promise.all(
        [".", ...entries].map((entry) =>
          stat(join(dir, entry)).then(
            (info) => info.mtimeMs,
            () => now,
          ),
        ),
      );
      if (now - Math.max(...times) <= idleMs) continue;
      await rm(dir, { recursive: true, force: true });
      removed++;
    }
    return removed;
  }

  async abortMultipartUpload(_key: string, uploadId: string): Promise<void> {
    if (!UPLOAD_ID.test(uploadId)) return;
    await rm(join(this.uploadsRoot, uploadId), { recursive: true, force: true });
  }

  private sign(uploadId: string, partNumber: number, expires: number): string {
    return createHmac("sha256", this.uploads.signingKey).update(`${uploadId}:${partNumber}:${expires}`).digest("hex");
  }

  private async uploadMeta(uploadId: string): Promise<LocalUploadMeta | undefined> {
    if (!UPLOAD_ID.test(uploadId)) return undefined;
    try {
      return JSON.parse(await readFile(join(this.uploadsRoot, uploadId, "upload.json"), "utf8")) as LocalUploadMeta;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  }

  private async uploadDir(uploadId: string): Promise<string> {
    if (!(await this.uploadMeta(uploadId))) throw new MultipartError("NoSuchUpload", "There is no such upload.");
    return join(this.uploadsRoot, uploadId);
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

  async download(key: string, targetPath: string): Promise<void> {
    const object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
    await mkdir(dirname(targetPath), { recursive: true });
    await pipeline(object.Body as Readable, createWriteStream(targetPath));
  }

  async createMultipartUpload(key: string, _maxBytes: number): Promise<string> {
    const created = await this.client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: key }));
    if (!created.UploadId) throw new Error("The S3 store answered no upload id");
    return created.UploadId;
  }

  /** Content-Length is signed into the URL: S3 refuses a body of any other size at it. */
  partUploadUrl(key: string, uploadId: string, partNumber: number, partBytes: number): Promise<string> {
    return getSignedUrl(
      this.client,
      new UploadPartCommand({
        Bucket: this.bucket,
        Key: key,
        UploadId: uploadId,
        PartNumber: partNumber,
        ContentLength: partBytes,
      }),
      { expiresIn: PART_URL_TTL_SECONDS },
    );
  }

  async listParts(key: string, uploadId: string): Promise<UploadedPart[]> {
    const parts: UploadedPart[] = [];
    let marker: string | undefined;
    try {
      for (;;) {
        const page = await this.client.send(
          new ListPartsCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId, PartNumberMarker: marker }),
        );
        for (const part of page.Parts ?? []) {
          if (part.PartNumber === undefined || !part.ETag) continue;
          parts.push({ part_number: part.PartNumber, etag: part.ETag, size: part.Size ?? 0 });
        }
        if (!page.IsTruncated || !page.NextPartNumberMarker) break;
        marker = page.NextPartNumberMarker;
      }
    } catch (error) {
      throw asMultipartError(error);
    }
    return parts.sort((a, b) => a.part_number - b.part_number);
  }

  async completeMultipartUpload(key: string, uploadId: string, parts: ReadonlyArray<CompletedPart>): Promise<number> {
    const ordered = normalizeCompletedParts(parts);
    try {
      await this.client.send(
        new CompleteMultipartUploadCommand({
          Bucket: this.bucket,
          Key: key,
          UploadId: uploadId,
          MultipartUpload: { Parts: ordered.map((p) => ({ PartNumber: p.part_number, ETag: `"${p.etag}"` })) },
        }),
      );
    } catch (error) {
      throw asMultipartError(error);
    }
    const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
    return head.ContentLength ?? 0;
  }

  async abortMultipartUpload(key: string, uploadId: string): Promise<void> {
    try {
      await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId }));
    } catch (error) {
      const converted = asMultipartError(error);
      if (converted instanceof MultipartError && converted.code === "NoSuchUpload") return;
      throw converted;
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

const MULTIPART_ERROR_CODES: ReadonlySet<string> = new Set<MultipartErrorCode>([
  "NoSuchUpload",
  "InvalidPart",
  "InvalidPartOrder",
  "EntityTooSmall",
  "EntityTooLarge",
]);

/** Whether `pid` names a live process other than this one (its own pid: nothing of it runs at start). */
function isOtherLiveProcess(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

/** S3's multipart errors as MultipartError; anything else unchanged. */
function asMultipartError(error: unknown): unknown {
  if (error instanceof S3ServiceException && MULTIPART_ERROR_CODES.has(error.name)) {
    return new MultipartError(error.name as MultipartErrorCode, error.message);
  }
  return error;
}

/** The key that signs the local store's part URLs: UPLOAD_SIGNING_KEY, else one generated on first
 * start and kept in the data directory (so URLs handed out before a restart stay valid). */
export function uploadSigningKey(config: Config): Buffer {
  if (config.uploadSigningKey) return Buffer.from(config.uploadSigningKey, "utf8");
  const path = join(config.dataDir, "upload-signing.key");
  try {
    return Buffer.from(readFileSync(path, "utf8").trim(), "hex");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  mkdirSync(config.dataDir, { recursive: true });
  const key = randomBytes(32).toString("hex");
  try {
    writeFileSync(path, key, { flag: "wx", mode: 0o600 });
  } catch (error) {
    // Another process (a worker, a second start) wrote it first: use theirs.
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return Buffer.from(readFileSync(path, "utf8").trim(), "hex");
  }
  return Buffer.from(key, "hex");
}

/** S3 when a bucket is configured, else the local store under `<dataDir>/files`. */
export function createFileStore(config: Config): FileStore {
  const { s3 } = config;
  if (!s3.bucket) {
    return new LocalFileStore(join(config.dataDir, "files"), {
      publicUrl: config.publicUrl,
      signingKey: uploadSigningKey(config),
    });
  }
  return new S3FileStore(s3Client(config), s3.bucket);
}

/** The client of the S3_* settings' store (the file store's, and the Slurm jobs' presigned URLs). */
export function s3Client(config: Config): S3Client {
  const { s3 } = config;
  return new S3Client({
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
}
