import type { Readable } from "node:stream";
import type { FastifyReply } from "fastify";

/** A stored file on its way to the browser as a download; it never sits in memory whole. */
export interface Download {
  fileName: string;
  size: number;
  stream: Readable;
}

/** How a download is sent: its content type, and what to take out of its name before the name is
 * put in Content-Disposition (each caller states it: its names may hold different things). */
export interface DownloadOptions {
  contentType: string;
  /** Every match is removed from the name (a global pattern); attachmentDisposition encodes the rest. */
  strip: RegExp;
}

/** The content type `types` gives the file name's extension (from its last '.', any case), else
 * `fallback`. */
export function contentTypeByExtension(fileName: string, types: Record<string, string>, fallback: string): string {
  const extension = fileName.slice(fileName.lastIndexOf(".")).toLowerCase();
  return types[extension] ?? fallback;
}

/** Content-Disposition for an attachment (RFC 6266): `filename="…"` holds the name without `strip`'s
 * matches, each character outside printable ASCII replaced by '_' (a header is ASCII: Node sends
 * U+0080..U+00FF as single Latin-1 bytes and refuses anything beyond); when that changed the name,
 * `filename*=UTF-8''…` (RFC 8187) carries it whole, percent-encoded, and browsers take that one. */
export function attachmentDisposition(fileName: string, strip: RegExp): string {
  const name = fileName.replace(strip, "");
  const fallback = name.replace(/[^\x20-\x7e]/gu, "_");
  const disposition = `attachment; filename="${fallback}"`;
  return fallback === name ? disposition : `${disposition}; filename*=UTF-8''${encodeExtValue(name)}`;
}

/** RFC 8187's attr-char are sent as they are; every other byte of the name's UTF-8 is %XX (a lone
 * surrogate becomes U+FFFD, as Buffer encodes it, where encodeURIComponent would throw). */
function encodeExtValue(name: string): string {
  let encoded = "";
  for (const byte of Buffer.from(name, "utf8")) {
    const char = String.fromCharCode(byte);
    encoded += /[A-Za-z0-9!#$&+\-.^_`|~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return encoded;
}

/** Streams the file as an attachment: its type, its length and its name. */
export function sendDownload(reply: FastifyReply, file: Download, { contentType, strip }: DownloadOptions) {
  return reply
    .header("content-type", contentType)
    .header("content-length", file.size)
    .header("content-disposition", attachmentDisposition(file.fileName, strip))
    .send(file.stream);
}
