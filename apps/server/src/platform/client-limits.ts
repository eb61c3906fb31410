import { isIPv6, type Socket } from "node:net";
import { CommonErrors } from "@polyforge/contracts/errors";
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from "fastify";
import type { ClientLimits, Config } from "./config";
import { errorBody } from "./errors";

declare module "fastify" {
  interface FastifyContextConfig {
    /** How the body of a request to this route is timed: by default it must arrive whole within
     * the request timeout; `idle`: it may take as long as it keeps moving (upload parts, job files),
     * and is cut after the idle timeout without a byte. */
    bodyTimeout?: "idle";
  }
}

/**
 * Slow and greedy clients: a client that opens connections and sends nothing, or sends headers and
 * then a trickle of its body, holds a socket and a file descriptor for as long as it likes unless
 * the server ends it. Node ends silent and slow-header connections itself (headersTimeout, checked
 * every `connectionsCheckingInterval`), so the server is created with those set from the limits;
 * bodies are watched here (Node's requestTimeout cannot spare upload parts, which may take minutes
 * on a slow link while they keep moving).
 */
export function clientLimitServerOptions(limits: ClientLimits): Pick<FastifyServerOptions, "requestTimeout"> & {
  http: { headersTimeout: number; connectionsCheckingInterval: number };
} {
  return {
    // 0: Node's own whole-request timer stays off; watchBody times bodies per route.
    requestTimeout: 0,
    http: { headersTimeout: limits.requestTimeoutMs, connectionsCheckingInterval: checkInterval(limits) },
  };
}

/** The bodies' watch and the connections' count of every request (see clientLimitServerOptions). */
export function installClientLimits(app: FastifyInstance, config: Config): void {
  const limits = config.clientLimits;
  // Behind a trusted proxy every connection is the proxy's: the client is the forwarded address,
  // known once the request's headers are read, so requests in flight are counted per address.
  if (config.trustProxy === false) limitConnectionsPerAddress(app, limits.connectionsPerAddress);
  else limitRequestsPerAddress(app, limits.connectionsPerAddress);
  app.addHook("onRequest", async (request, reply) => {
    if (!hasBody(request)) return;
    const idle = request.routeOptions.config?.bodyTimeout === "idle";
    watchBody(request, reply, idle ? "idle" : "deadline", idle ? limits.uploadIdleTimeoutMs : limits.requestTimeoutMs);
  });
}

/** How often bodies (and Node, connections) are looked at: a quarter of the shortest limit, 50 ms
 * to 1 s, so a cut comes at most a quarter late. */
function checkInterval(limits: ClientLimits): number {
  return Math.min(1000, Math.max(50, Math.min(limits.requestTimeoutMs, limits.uploadIdleTimeoutMs) / 4));
}

function hasBody(request: FastifyRequest): boolean {
  const { headers } = request.raw;
  return headers["transfer-encoding"] !== undefined || Number(headers["content-length"] ?? 0) > 0;
}

/**
 * Cuts a request whose body is late: `deadline`, not all there `ms` after its headers; `idle`, no
 * byte for `ms`. Time the server itself spends not reading (the socket paused because the route has
 * not taken what arrived, the disk is slow) never counts against the client.
 */
function watchBody(request: FastifyRequest, reply: FastifyReply, mode: "deadline" | "idle", ms: number): void {
  const raw = request.raw;
  const socket = raw.socket as Socket | undefined;
  // Injected requests (tests) have no socket to be slow on.
  if (!socket || typeof socket.bytesRead !== "number") return;
  const started = Date.now();
  let lastBytes = socket.bytesRead;
  let lastMoved = started;
  const timer = setInterval(
    () => {
      if (raw.complete || raw.destroyed || socket.destroyed) {
        clearInterval(timer);
        return;
      }
      const now = Date.now();
      const serverWaiting = socket.isPaused() || raw.readableLength > 0;
      if (socket.bytesRead !== lastBytes || serverWaiting) {
        lastBytes = socket.bytesRead;
        lastMoved = now;
      }
      const late = mode === "deadline" ? now - started >= ms && !serverWaiting : now - lastMoved >= ms;
      if (!late) return;
      clearInterval(timer);
      cutOff(request, reply, mode, ms);
    },
    Math.min(1000, Math.max(50, ms / 4)),
  );
  timer.unref();
}

/** Answers 408 in the envelope (when nothing was answered yet) and closes the connection. */
function cutOff(request: FastifyRequest, reply: FastifyReply, mode: "deadline" | "idle", ms: number): void {
  const seconds = ms / 1000;
  const message =
    mode === "idle"
      ? `No data arrived for ${seconds} s: the upload was stopped.`
      : `The request did not arrive within ${seconds} s.`;
  request.log.info({ mode, seconds }, "slow request body cut off");
  const response = reply.raw;
  // Whoever reads the body (a part being stored) learns it ends here, and tidies up; destroying the
  // request closes its connection too. Node would not end a body that was being read once the
  // answer has gone out, so it is ended explicitly.
  const abort = () =>
    request.raw.destroy(Object.assign(new Error(message), { code: "ERR_BODY_TIMEOUT", statusCode: 408 }));
  if (response.headersSent) {
    abort();
    return;
  }
  // The route may still be waiting for the body: it must not answer after this.
  reply.hijack();
  const body = JSON.stringify(errorBody(CommonErrors.REQUEST_TIMEOUT, { message }));
  response.writeHead(408, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    connection: "close",
  });
  response.end(body, abort);
}

/** The address a limit counts under: IPv4 as it is (also when mapped into IPv6), IPv6 by its /64,
 * the block one subscriber gets. */
export function addressKey(address: string | undefined): string {
  if (!address) return "unknown";
  if (address.startsWith("::ffff:") && address.includes(".")) return address.slice(7);
  if (!isIPv6(address)) return address;
  const [head = "", tail = ""] = address.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = address.includes("::")
    ? [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(":")}::/64`;
}

const RETRY_AFTER_SECONDS = 5;

/** Counts open connections per remote address; past the limit a new one is answered 429 and
 * closed at once, so one address cannot take every file descriptor (others, /api/health included,
 * are still answered). */
function limitConnectionsPerAddress(app: FastifyInstance, limit: number): void {
  const open = new Map<string, number>();
  const body = JSON.stringify(
    errorBody(CommonErrors.TOO_MANY_REQUESTS, { message: `At most ${limit} connections from one address.` }),
  );
  const refusal = [
    "HTTP/1.1 429 Too Many Requests",
    "content-type: application/json; charset=utf-8",
    `content-length: ${Buffer.byteLength(body)}`,
    `retry-after: ${RETRY_AFTER_SECONDS}`,
    "connection: close",
    "",
    body,
  ].join("\r\n");
  app.server.on("connection", (socket: Socket) => {
    const key = addressKey(socket.remoteAddress);
    const count = (open.get(key) ?? 0) + 1;
    if (count > limit) {
      socket.on("error", () => {});
      socket.end(refusal);
      // A client still sending its request would keep the half-closed socket: it goes after a grace.
      setTimeout(() => socket.destroy(), 1000).unref();
      return;
    }
    open.set(key, count);
    socket.once("close", () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left > 0) open.set(key, left);
      else open.delete(key);
    });
  });
}

/** Behind a trusted proxy: requests in flight per forwarded client address; past the limit 429. */
function limitRequestsPerAddress(app: FastifyInstance, limit: number): void {
  const inFlight = new Map<string, number>();
  app.addHook("onRequest", async (request, reply) => {
    const key = addressKey(request.ip);
    const count = (inFlight.get(key) ?? 0) + 1;
    if (count > limit) {
      return reply
        .code(429)
        .header("retry-after", RETRY_AFTER_SECONDS)
        .send(
          errorBody(CommonErrors.TOO_MANY_REQUESTS, { message: `At most ${limit} requests at once from one address.` }),
        );
    }
    inFlight.set(key, count);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const left = (inFlight.get(key) ?? 1) - 1;
      if (left > 0) inFlight.set(key, left);
      else inFlight.delete(key);
    };
    reply.raw.once("close", release);
    request.raw.once("close", release);
  });
}
