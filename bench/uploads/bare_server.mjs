// The floor the upload benchmark compares against: a bare Node HTTP server that streams each PUT
// body to a file and answers its MD5 as the ETag — what receiving a part costs on this machine
// with nothing of ours around it (no routing, no signature, no token, no database).
import { createHash } from "node:crypto";
import { createWriteStream, mkdirSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";

const dir = process.argv[2];
const port = Number(process.argv[3]);
mkdirSync(dir, { recursive: true });
createServer(async (request, response) => {
  if (request.method !== "PUT") {
    response.writeHead(200).end("ok");
    return;
  }
  const md5 = createHash("md5");
  request.on("data", (chunk) => md5.update(chunk));
  await pipeline(request, createWriteStream(join(dir, request.url.replace(/\W/g, "_"))));
  response.writeHead(200, { etag: `"${md5.digest("hex")}"` }).end();
}).listen(port, "127.0.0.1", () => process.stdout.write(`listening ${port}\n`));
// Exit on SIGTERM through process.exit, so that a --cpu-prof profile is written.
process.on("SIGTERM", () => process.exit(0));
