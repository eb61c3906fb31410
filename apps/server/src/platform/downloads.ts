import type { Readable } from "node:stream";
import type { FastifyReply } from "fastify";

/** A stored file on its way to the browser as a download; it never sits in memory whole. */
export interface Download {
  fileName: string;
  size: number;
  stream: Readable;
}

/** How a download is sent: its content type, and what to take out of its name before the name is
 * quoted in Content-Disposition (each caller states it: its names may hold different things). */
export interface DownloadOptions {
  contentType: string;
  /** Every match is removed from the name (a global pattern); nothing else is done to it. */
  strip: RegExp;
}

/** The content type `types` gives the file name's extension (from its last '.', any case), else
 * `fallback`. */
export function contentTypeByExtension(fileName: string, types: Record<string, string>, fallback: string): string {
  const extension = fileName.slice(fileName.lastIndexOf(".")).toLowerCase();
  return types[extension] ?? fallback;
}

/** `attachment; filename="…"`: the name without `strip`'s matches, otherwise as it is (not encoded). */
export function attachmentDisposition(fileName: string, strip: RegExp): string {
  return `attachment; filename="${fileName.replace(strip, "")}"`;
}

/** Streams the file as an attachment: its type, its length and its name. */
export function sendDownload(reply: FastifyReply, file: Download, { contentType, strip }: DownloadOptions) {
  return reply
    .header("content-type", contentType)
    .header("content-length", file.size)
    .header("content-disposition", attachmentDisposition(file.fileName, strip))
    .send(file.stream);
}
