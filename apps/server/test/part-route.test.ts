import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import fastifyCompress from "@fastify/compress";
import Fastify from "fastify";
import { serializerCompiler, validatorCompiler } from "fastify-type-provider-zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalFileStore } from "../src/platform/storage/file-store";
import { localPartRoute } from "../src/platform/storage/part-route";
import { localPartEtag } from "./support/etag";

/**
 * The embedded store's part PUT takes the body's bytes as sent, as S3's UploadPart does: the
 * server-wide compression (registered before it, as in app.ts) neither decodes a body sent with a
 * Content-Encoding nor touches the answer.
 */
describe("the embedded store's part PUT under the server's compression", () => {
  const app = Fastify();
  const store = new LocalFileStore(mkdtempSync(join(tmpdir(), "pf-part-route-")), {
    publicUrl: "http://localhost",
    signingKey: randomBytes(32),
  });
  beforeAll(async () => {
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    await app.register(fastifyCompress, { encodings: ["br", "gzip"], threshold: 1024 });
    await app.register(localPartRoute(store));
    await app.ready();
  });
  afterAll(() => app.close());

  async function put(body: Buffer, headers: Record<string, string>) {
    const key = "molecular-systems/a/upload/part.pdb";
    const uploadId = await store.createMultipartUpload(key, body.length);
    const url = new URL(await store.partUploadUrl(key, uploadId, 1, body.length));
    const response = await app.inject({
      method: "PUT",
      url: `${url.pathname}${url.search}`,
      headers: { "content-type": "application/octet-stream", ...headers },
      payload: body,
    });
    return { response, parts: await store.listParts(key, uploadId) };
  }

  it("stores a body sent with Content-Encoding: gzip as its bytes, whether or not they are gzip", async () => {
    for (const body of [randomBytes(70_000), gzipSync(Buffer.from("ATOM ".repeat(20_000)))]) {
      const { response, parts } = await put(body, { "content-encoding": "gzip", "accept-encoding": "gzip" });
      expect(response.statusCode).toBe(200);
      expect(response.headers.etag).toBe(`"${localPartEtag(body)}"`);
      expect(response.headers["content-encoding"]).toBeUndefined();
      expect(parts).toEqual([{ part_number: 1, etag: `"${localPartEtag(body)}"`, size: body.length }]);
    }
  });

  it("takes a Content-Encoding the compression does not know", async () => {
    const body = randomBytes(10_000);
    const { response, parts } = await put(body, { "content-encoding": "aws-chunked" });
    expect(response.statusCode).toBe(200);
    expect(parts).toEqual([{ part_number: 1, etag: `"${localPartEtag(body)}"`, size: body.length }]);
  });
});
