// The floor the upload benchmark compares against: a bare Node HTTP server that streams each PUT
// body to a file and answers its MD5 as the ETag (as S3 does), or with `crc32` as the 3rd argument
// its zlib CRC-32 (as the embedded store does since 26 Nov) — what receiving a part costs on this
// machine with nothing of ours around it (no routing, no signature, no token, no database).
import { createHash } from "node:crypto";
import { createWriteStream, mkdirSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { crc32 } from "node:zlib";

const dir = process.argv[2];
const port = Number(process.argv[3]);
const digest = process.argv[4] ?? "md5";
mkdirSync(dir, { recursive: true });
createServer(async (request, response) => {
  if (request.method !== "PUT") {
    response.writeHead(200).end("ok");
    return;
  }
  const md5 = digest === "md5" ? createHash("md5") : undefined;
  let crc = 0;
  let size = 0;
  request.on("data", (chunk) => {
    size += chunk.length;
    if (md5) md5.update(chunk);
    else crc = crc32(chunk, crc);
  });
  await pipeline(request, createWriteStream(join(dir, request.url.replace(/\W/g, "_"))));
  const etag = md5 ? md5.digest("hex") : `${crc.toString(16).padStart(8, "0")}-${size}`;
  response.writeHead(200, { etag: `"${etag}"` }).end();
}).listen(port, "127.0.0.1", () => process.stdout.write(`listening ${port}\n`));
// Exit on SIGTERM through process.exit, so that a --cpu-prof profile is written.
process.on("SIGTERM", () => process.exit(0));
