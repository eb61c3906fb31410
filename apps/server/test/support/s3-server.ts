import { type ChildProcess, spawn } from "node:child_process";
import { createHash, createHmac } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
// @ts-expect-error s3rver ships no type declarations
import S3rver from "s3rver";
import { REPO_ROOT } from "../../src/platform/paths";

/** moto's S3 server from the engine's virtual environment (the engine's `test` extra installs it):
 * unlike s3rver it implements the whole multipart API, ListParts and AbortMultipartUpload included. */
export const MOTO_SERVER = resolve(REPO_ROOT, ".venv/bin/moto_server");

export interface S3TestServer {
  endpoint: string;
  /** The S3_* settings of an app using this server and bucket. */
  env(bucket: string): NodeJS.ProcessEnv;
  createBucket(bucket: string): Promise<void>;
  close(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

/** Starts a real S3-protocol server on a free loopback port and waits until it answers. */
export async function startS3Server(): Promise<S3TestServer> {
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(MOTO_SERVER, ["-H", "127.0.0.1", "-p", String(port)], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, AWS_ACCESS_KEY_ID: "test", AWS_SECRET_ACCESS_KEY: "test" },
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2000);
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`moto_server exited: ${stderr}`);
    const up = await fetch(`${endpoint}/`).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) throw new Error(`moto_server did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const client = new S3Client({
    endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId: "test", secretAccessKey: "test" },
  });
  return {
    endpoint,
    env: (bucket) => ({
      S3_ENDPOINT: endpoint,
      S3_BUCKET: bucket,
      S3_REGION: "us-east-1",
      S3_ACCESS_KEY_ID: "test",
      S3_SECRET_ACCESS_KEY: "test",
    }),
    createBucket: async (bucket) => {
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
    },
    close: async () => {
      client.destroy();
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** s3rver (an in-process S3-protocol server, simpler than moto) on a free loopback port with one
 * bucket; its credentials are S3RVER/S3RVER. */
export async function startS3rver(bucket: string): Promise<{ endpoint: string; close(): Promise<void> }> {
  const server: { run(): Promise<AddressInfo>; close(): Promise<void> } = new S3rver({
    port: 0,
    address: "127.0.0.1",
    silent: true,
    directory: mkdtempSync(join(tmpdir(), "polyforge-s3rver-")),
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  return { endpoint: `http://127.0.0.1:${port}`, close: () => server.close() };
}

const rfc3986 = (text: string) =>
  encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * Whether S3 would take a PUT of `contentLength` bytes at this presigned URL: its SigV4 signature
 * worked out here from the URL, the credentials and that length, as S3 works it out (moto does not
 * check signatures). Only URLs that sign content-length depend on the length.
 */
export function presignedPutAccepts(url: string, contentLength: number, secretAccessKey = "test"): boolean {
  const parsed = new URL(url);
  const query = [...parsed.searchParams.entries()].filter(([name]) => name !== "X-Amz-Signature");
  const canonicalQuery = query
    .map(([name, value]) => [rfc3986(name), rfc3986(value)])
    .sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join("&");
  const signedHeaders = parsed.searchParams.get("X-Amz-SignedHeaders")!.split(";");
  const headerValues: Record<string, string> = { host: parsed.host, "content-length": String(contentLength) };
  const canonicalHeaders = signedHeaders.map((name) => `${name}:${headerValues[name]}\n`).join("");
  const canonicalRequest = [
    "PUT",
    parsed.pathname,
    canonicalQuery,
    canonicalHeaders,
    signedHeaders.join(";"),
    "UNSIGNED-PAYLOAD",
  ].join("\n");
  const amzDate = parsed.searchParams.get("X-Amz-Date")!;
  const [, date, region, service] = parsed.searchParams.get("X-Amz-Credential")!.split("/");
  const scope = `${date}/${region}/${service}/aws4_request`;
  const toSign = ["AWS4-HMAC-SHA256", amzDate, scope, createHash("sha256").update(canonicalRequest).digest("hex")].join(
    "\n",
  );
  const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data).digest();
  const key = hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, date!), region!), service!), "aws4_request");
  return createHmac("sha256", key).update(toSign).digest("hex") === parsed.searchParams.get("X-Amz-Signature");
}
