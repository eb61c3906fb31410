import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { UPLOAD_PART_SIZE } from "@polyforge/contracts/uploads";
import { describe, expect, it } from "vitest";
import { LocalFileStore, MultipartError, type PartLimits } from "../src/platform/storage/file-store";
import { localPartEtag } from "./support/etag";

const md5 = (data: Buffer) => createHash("md5").update(data).digest("hex");

/** A body that arrives in small chunks, as a socket delivers it. */
const chunked = (data: Buffer, chunk = 64 * 1024) =>
  Readable.from(
    (function* () {
      for (let at = 0; at < data.length; at += chunk) yield data.subarray(at, at + chunk);
    })(),
  );

function newStore() {
  const root = mkdtempSync(join(tmpdir(), "pf-multipart-"));
  const store = new LocalFileStore(root, { publicUrl: "http://localhost", signingKey: Buffer.from("k") });
  return { root, store };
}

const limitsOf = (fileBytes: number): PartLimits => ({ maxPartBytes: fileBytes, fileBytes });

describe("the embedded store's multipart upload", () => {
  it("writes 5 MB parts in place and completes by renaming, whatever order they came in", async () => {
    const { root, store } = newStore();
    const file = randomBytes(2 * UPLOAD_PART_SIZE + 12_345);
    const key = "molecular-systems/a/upload/big.pdb";
    const uploadId = await store.createMultipartUpload(key, file.length);
    const slices = [0, 1, 2].map((i) => file.subarray(i * UPLOAD_PART_SIZE, (i + 1) * UPLOAD_PART_SIZE));
    const etags: string[] = [];
    for (const index of [2, 0, 1]) {
      const part = slices[index]!;
      etags[index] = await store.receivePart(uploadId, index + 1, chunked(part), limitsOf(file.length), part.length);
      expect(etags[index]).toBe(`"${localPartEtag(part)}"`);
    }
    const uploadDir = join(root, ".multipart", uploadId);
    // Every part lies in the one assembly file: no part file of its own.
    expect(readdirSync(uploadDir).filter((name) => /^\d{5}\.[^.]+$/.test(name))).toEqual([]);
    expect(await store.listParts(key, uploadId)).toEqual(
      slices.map((part, i) => ({ part_number: i + 1, etag: etags[i], size: part.length })),
    );
    const assembly = statSync(join(uploadDir, "assembly")).ino;
    const size = await store.completeMultipartUpload(
      key,
      uploadId,
      etags.map((etag, i) => ({ part_number: i + 1, etag: etag! })),
    );
    expect(size).toBe(file.length);
    expect(md5(readFileSync(join(root, key)))).toBe(md5(file));
    // The object is the assembly file itself, renamed (nothing copied).
    expect(statSync(join(root, key)).ino).toBe(assembly);
    expect(existsSync(uploadDir)).toBe(false);
  });

  it("keeps a part sent again, or of another size, in a file of its own and assembles them in order", async () => {
    const { root, store } = newStore();
    const file = randomBytes(2 * UPLOAD_PART_SIZE + 100);
    const key = "molecular-systems/b/upload/mixed.gro";
    const uploadId = await store.createMultipartUpload(key, file.length);
    const limits = limitsOf(file.length);
    // Part 1 first with other bytes, then again with the right ones (its own file, replacing it).
    const wrong = randomBytes(UPLOAD_PART_SIZE);
    const replacedEtag = await store.receivePart(uploadId, 1, chunked(wrong), limits, wrong.length);
    const first = file.subarray(0, UPLOAD_PART_SIZE);
    const etag1 = await store.receivePart(uploadId, 1, chunked(first), limits, first.length);
    expect(etag1).not.toBe(replacedEtag);
    // Part 2 without a declared length (no place), part 3 in place.
    const second = file.subarray(UPLOAD_PART_SIZE, 2 * UPLOAD_PART_SIZE);
    const etag2 = await store.receivePart(uploadId, 2, chunked(second), limits);
    const third = file.subarray(2 * UPLOAD_PART_SIZE);
    const etag3 = await store.receivePart(uploadId, 3, chunked(third), limits, third.length);
    expect((await store.listParts(key, uploadId)).map((p) => [p.part_number, p.etag, p.size])).toEqual([
      [1, etag1, UPLOAD_PART_SIZE],
      [2, etag2, UPLOAD_PART_SIZE],
      [3, etag3, 100],
    ]);
    // The ETag of the copy that was replaced no longer completes.
    await expect(
      store.completeMultipartUpload(key, uploadId, [
        { part_number: 1, etag: replacedEtag },
        { part_number: 2, etag: etag2 },
        { part_number: 3, etag: etag3 },
      ]),
    ).rejects.toMatchObject({ code: "InvalidPart", partNumber: 1 });
    const size = await store.completeMultipartUpload(key, uploadId, [
      { part_number: 1, etag: etag1 },
      { part_number: 2, etag: etag2 },
      { part_number: 3, etag: etag3 },
    ]);
    expect(size).toBe(file.length);
    expect(md5(readFileSync(join(root, key)))).toBe(md5(file));
  });

  it("refuses a part list with a wrong ETag and keeps the parts for another try", async () => {
    const { store } = newStore();
    const file = randomBytes(UPLOAD_PART_SIZE + 10);
    const key = "molecular-systems/c/upload/retry.pdb";
    const uploadId = await store.createMultipartUpload(key, file.length);
    const limits = limitsOf(file.length);
    const a = file.subarray(0, UPLOAD_PART_SIZE);
    const b = file.subarray(UPLOAD_PART_SIZE);
    const etagA = await store.receivePart(uploadId, 1, chunked(a), limits, a.length);
    const etagB = await store.receivePart(uploadId, 2, chunked(b), limits, b.length);
    await expect(
      store.completeMultipartUpload(key, uploadId, [
        { part_number: 1, etag: etagA },
        { part_number: 2, etag: `"${md5(a)}"` },
      ]),
    ).rejects.toBeInstanceOf(MultipartError);
    expect((await store.listParts(key, uploadId)).length).toBe(2);
    await store.completeMultipartUpload(key, uploadId, [
      { part_number: 1, etag: etagA },
      { part_number: 2, etag: etagB },
    ]);
  });

  it("still completes with parts a server before the CRC-32 ETags stored under their MD5", async () => {
    const { root, store } = newStore();
    const file = randomBytes(UPLOAD_PART_SIZE + 10);
    const key = "molecular-systems/d/upload/upgraded.pdb";
    const uploadId = await store.createMultipartUpload(key, file.length);
    const a = file.subarray(0, UPLOAD_PART_SIZE);
    const b = file.subarray(UPLOAD_PART_SIZE);
    // Part 1 as the MD5-era server left it in place: the assembly file and its marker.
    const dir = join(root, ".multipart", uploadId);
    writeFileSync(join(dir, "assembly"), a);
    writeFileSync(join(dir, `00001.${md5(a)}.placed-${a.length}`), "");
    const etagB = await store.receivePart(uploadId, 2, chunked(b), limitsOf(file.length), b.length);
    expect(await store.listParts(key, uploadId)).toEqual([
      { part_number: 1, etag: `"${md5(a)}"`, size: a.length },
      { part_number: 2, etag: etagB, size: b.length },
    ]);
    await store.completeMultipartUpload(key, uploadId, [
      { part_number: 1, etag: `"${md5(a)}"` },
      { part_number: 2, etag: etagB },
    ]);
    expect(md5(readFileSync(join(root, key)))).toBe(md5(file));
  });
});
