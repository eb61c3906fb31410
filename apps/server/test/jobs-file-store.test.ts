import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { text } from "node:stream/consumers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/platform/config";
import { createFileStore, type FileStore, LocalFileStore, S3FileStore } from "../src/platform/storage/file-store";
import { startS3rver } from "./support/s3-server";

const BUCKET = "polyforge-results";

/** The job runner's file store, local and S3 (against s3rver, an S3-protocol server), kept to
 * one behaviour. */
describe("file store", () => {
  let s3server: { endpoint: string; close(): Promise<void> };
  let s3Endpoint: string;

  beforeAll(async () => {
    s3server = await startS3rver(BUCKET);
    s3Endpoint = s3server.endpoint;
  });
  afterAll(() => s3server.close());

  const stores: Array<[string, () => FileStore]> = [
    ["local disk", () => createFileStore(loadConfig({ POLYFORGE_DATA_DIR: mkdtempSync(join(tmpdir(), "pf-files-")) }))],
    [
      "S3",
      () =>
        createFileStore(
          loadConfig({
            S3_ENDPOINT: s3Endpoint,
            S3_BUCKET: BUCKET,
            S3_REGION: "us-east-1",
            S3_ACCESS_KEY_ID: "S3RVER",
            S3_SECRET_ACCESS_KEY: "S3RVER",
          }),
        ),
    ],
  ];

  it("is the local store by default and S3 when a bucket is configured", () => {
    expect(stores[0]![1]()).toBeInstanceOf(LocalFileStore);
    expect(stores[1]![1]()).toBeInstanceOf(S3FileStore);
  });

  it.each(stores)("%s: stores, streams back and removes an execution's files", async (_name, makeStore) => {
    const store = makeStore();
    const source = join(mkdtempSync(join(tmpdir(), "pf-source-")), "energies.csv");
    const content = `time_ps,potential_energy_kj_mol\n${"0.1,-12.5\n".repeat(2000)}`;
    writeFileSync(source, content);
    const prefix = `system-executions/${crypto.randomUUID()}`;

    expect(await store.put(`${prefix}/energies.csv`, source)).toBe(Buffer.byteLength(content));
    const opened = await store.open(`${prefix}/energies.csv`);
    expect(opened?.size).toBe(Buffer.byteLength(content));
    expect(await text(opened!.stream as Readable)).toBe(content);
    expect(await store.open(`${prefix}/missing.csv`)).toBeUndefined();

    await store.removePrefix(prefix);
    expect(await store.open(`${prefix}/energies.csv`)).toBeUndefined();
  });

  it("refuses keys that leave the local store's directory", async () => {
    const store = new LocalFileStore(mkdtempSync(join(tmpdir(), "pf-files-")), {
      publicUrl: "http://localhost",
      signingKey: Buffer.from("test-signing-key"),
    });
    await expect(store.open("../outside.txt")).rejects.toThrow(/Invalid file store key/);
  });
});
