import { crc32 } from "node:zlib";

/** The embedded store's ETag of a part, worked out here from the bytes (CRC-32 in hex, then the
 * length), unquoted; S3 answers an MD5 instead. */
export const localPartEtag = (data: Buffer): string => `${crc32(data).toString(16).padStart(8, "0")}-${data.length}`;
