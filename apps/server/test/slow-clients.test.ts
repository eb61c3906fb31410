import { mkdtempSync, readdirSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CommonErrors } from "@polyforge/contracts/errors";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, buildApp } from "../src/app";
import { addressKey } from "../src/platform/client-limits";
import { loadConfig } from "../src/platform/config";
import type { LocalFileStore } from "../src/platform/storage/file-store";
import { createTestDatabase, type DatabaseKind, databaseKinds, type TestDatabase } from "./support/database";
import { localPartEtag } from "./support/etag";
import { freePort } from "./support/s3-server";

/**
 * Slow and greedy clients, over real sockets against the whole app with its embedded sign-in: a
 * body that stops arriving is cut off (the token endpoint, the sign-in form, an upload part), an
 * upload part that keeps moving is not, and one address cannot hold every connection.
 */

interface Served {
  app: App;
  port: number;
  dataDir: string;
}

async function serve(database: TestDatabase, env: Record<string, string>): Promise<Served> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "polyforge-slow-"));
  const config = loadConfig({
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: "silent",
    POLYFORGE_DATA_DIR: dataDir,
    WEB_DIST_DIR: join(tmpdir(), "polyforge-slow-no-web"),
    ...env,
  });
  const app = await buildApp({ config, database: database.target, runJobs: false });
  await app.listen({ port, host: "127.0.0.1" });
  return { app, port, dataDir };
}

interface RawExchange {
  socket: Socket;
  /** Everything the server sent, once it closed the connection. */
  closed: Promise<string>;
}

/** A raw connection (from `localAddress`, any 127.x address on Linux) that sends `text` and keeps
 * the socket open for as long as the server does. */
function rawExchange(port: number, text: string, localAddress = "127.0.0.1"): Promise<RawExchange> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: "127.0.0.1", localAddress });
    let received = "";
    socket.on("data", (chunk) => {
      received += chunk.toString();
    });
    socket.on("error", () => {});
    const closed = new Promise<string>((resolveClosed) => socket.on("close", () => resolveClosed(received)));
    socket.once("connect", () => {
      if (text) socket.write(text);
      resolve({ socket, closed });
    });
    socket.once("error", reject);
  });
}

/** Headers announcing 1000 bytes of body, and 10 of them. */
const stalledPost = (path: string, extraHeaders = "") =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n${extraHeaders}Content-Length: 1000\r\n\r\ngrant_type`;

function statusOf(response: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1]);
}

function bodyOf(response: string): { errors: Array<{ error_code: string; args?: Record<string, unknown> }> } {
  return JSON.parse(response.slice(response.indexOf("\r\n\r\n") + 4));
}

/** GET /api/health from `localAddress`: its status, or the error that stopped it. */
function health(port: number, localAddress: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = httpRequest({ port, host: "127.0.0.1", localAddress, path: "/api/health", agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", (error) => resolve(String((error as NodeJS.ErrnoException).code ?? error.message)));
    req.end();
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(databaseKinds())("slow clients on %s", (kind: DatabaseKind) => {
  let database: TestDatabase;
  let served: Served;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    served = await serve(database, {
      POLYFORGE_REQUEST_TIMEOUT_SECONDS: "1",
      POLYFORGE_UPLOAD_IDLE_TIMEOUT_SECONDS: "1",
    });
  }, 120_000);
  afterAll(async () => {
    await served?.app.close();
    await database?.drop();
  });

  it("cuts off a body that stops arriving at the token endpoint and the sign-in form with 408", async () => {
    const paths = [
      "/auth/realms/polyforge/protocol/openid-connect/token",
      "/auth/realms/polyforge/interaction/00000000000000000000000000000000/login",
    ];
    for (const path of paths) {
      const started = Date.now();
      const exchange = await rawExchange(served.port, stalledPost(path));
      const response = await exchange.closed;
      expect(statusOf(response), path).toBe(408);
      expect(bodyOf(response).errors[0]?.error_code).toBe(CommonErrors.REQUEST_TIMEOUT);
      // Cut after the 1 s limit, not by some other timer a minute later.
      expect(Date.now() - started, path).toBeLessThan(20_000);
    }
  }, 60_000);

  it("closes a connection that sends nothing at all", async () => {
    const exchange = await rawExchange(served.port, "");
    const response = await exchange.closed;
    expect(statusOf(response)).toBe(408);
  }, 60_000);

  it("lets an upload part run as long as it keeps moving, and cuts one that stalls without losing the upload", async () => {
    const store = served.app.processing.store as LocalFileStore;
    const body = Buffer.alloc(5000, 7);
    const key = "molecular-systems/slow/upload.pdb";
    const uploadId = await store.createMultipartUpload(key, body.length);
    const url = new URL(await store.partUploadUrl(key, uploadId, 1, body.length));
    const head = `PUT ${url.pathname}${url.search} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${body.length}\r\n\r\n`;

    // Ten slices 300 ms apart: 3 s in all, three times the request timeout, never 1 s without a byte.
    const moving = await rawExchange(served.port, head);
    for (let i = 0; i < 10; i++) {
      moving.socket.write(body.subarray(i * 500, (i + 1) * 500));
      await sleep(300);
    }
    moving.socket.end();
    const answer = await moving.closed;
    expect(statusOf(answer), answer).toBe(200);
    expect(answer).toContain(`etag: "${localPartEtag(body)}"`);
    expect(await store.listParts(key, uploadId)).toEqual([
      { part_number: 1, etag: `"${localPartEtag(body)}"`, size: body.length },
    ]);

    // The same part again, stalled after 10 bytes: cut, and the part stored before is still there.
    const stalled = await rawExchange(served.port, `${head}0123456789`);
    const cut = await stalled.closed;
    expect(statusOf(cut)).toBe(408);
    expect(bodyOf(cut).errors[0]?.error_code).toBe(CommonErrors.REQUEST_TIMEOUT);
    const uploadDir = join(served.dataDir, "files", ".multipart", uploadId);
    const temporaries = () => readdirSync(uploadDir).filter((name) => name.endsWith(".tmp"));
    for (let i = 0; i < 50 && temporaries().length > 0; i++) await sleep(100);
    expect(temporaries()).toEqual([]);
    expect((await store.listParts(key, uploadId)).map((part) => part.size)).toEqual([body.length]);
  }, 60_000);
});

describe.each(databaseKinds())("connections per address on %s", (kind: DatabaseKind) => {
  let database: TestDatabase;
  let served: Served;
  const held: Socket[] = [];
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    served = await serve(database, { POLYFORGE_CONNECTIONS_PER_ADDRESS: "5" });
  }, 120_000);
  afterAll(async () => {
    for (const socket of held) socket.destroy();
    await served?.app.close();
    await database?.drop();
  });

  it("refuses connections past the cap from one address and still answers the others", async () => {
    // Five silent token requests hold every connection this address may have.
    for (let i = 0; i < 5; i++) {
      held.push(
        (await rawExchange(served.port, stalledPost("/auth/realms/polyforge/protocol/openid-connect/token"))).socket,
      );
    }
    await sleep(200);
    const sixth = await rawExchange(served.port, "GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    const refused = await sixth.closed;
    expect(statusOf(refused)).toBe(429);
    expect(bodyOf(refused).errors[0]?.error_code).toBe(CommonErrors.TOO_MANY_REQUESTS);
    expect(refused.toLowerCase()).toContain("retry-after:");
    // Another address is answered as ever.
    expect(await health(served.port, "127.0.0.2")).toBe(200);
    // One of the five goes: this address is answered again.
    const freed = held.pop()!;
    const gone = new Promise((resolve) => freed.once("close", resolve));
    freed.destroy();
    await gone;
    await sleep(100);
    expect(await health(served.port, "127.0.0.1")).toBe(200);
  }, 60_000);

  it("counts requests in flight per forwarded address behind a trusted proxy", async () => {
    const proxied = await serve(database, { POLYFORGE_CONNECTIONS_PER_ADDRESS: "2", TRUST_PROXY: "loopback" });
    const sockets: Socket[] = [];
    try {
      const from = (client: string) => `X-Forwarded-For: ${client}\r\n`;
      for (let i = 0; i < 2; i++) {
        sockets.push(
          (
            await rawExchange(
              proxied.port,
              stalledPost("/auth/realms/polyforge/protocol/openid-connect/token", from("203.0.113.7")),
            )
          ).socket,
        );
      }
      await sleep(200);
      const third = await rawExchange(
        proxied.port,
        `GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n${from("203.0.113.7")}Connection: close\r\n\r\n`,
      );
      expect(statusOf(await third.closed)).toBe(429);
      const other = await rawExchange(
        proxied.port,
        `GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n${from("203.0.113.8")}Connection: close\r\n\r\n`,
      );
      expect(statusOf(await other.closed)).toBe(200);
    } finally {
      for (const socket of sockets) socket.destroy();
      await proxied.app.close();
    }
  }, 120_000);
});

describe("the address a connection counts under", () => {
  it("is an IPv4 address as it is, mapped or not, and an IPv6 address's /64", () => {
    expect(addressKey("203.0.113.7")).toBe("203.0.113.7");
    expect(addressKey("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(addressKey("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8:1:2:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
  });
});
