import { createWriteStream } from "node:fs";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import yauzl from "yauzl";

/**
 * Copies the named top-level members of a zip file into `targetDir`, streaming (a member is never
 * held in memory whole). Answers the paths written, by member name; absent members are skipped.
 */
export async function extractMembers(
  zipPath: string,
  names: readonly string[],
  targetDir: string,
): Promise<Map<string, string>> {
  const wanted = new Set(names);
  const written = new Map<string, string>();
  const zip = await yauzl.openPromise(zipPath, { lazyEntries: true });
  try {
    for (let entry = await nextEntry(zip); entry; entry = await nextEntry(zip)) {
      if (!wanted.has(entry.fileName)) continue;
      const target = join(targetDir, entry.fileName);
      await pipeline(await zip.openReadStreamPromise(entry), createWriteStream(target));
      written.set(entry.fileName, target);
    }
  } finally {
    zip.close();
  }
  return written;
}

/** The next entry of a lazily read zip, or undefined at its end. */
function nextEntry(zip: yauzl.ZipFile): Promise<yauzl.Entry | undefined> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      zip.off("entry", onEntry);
      zip.off("end", onEnd);
      zip.off("error", onError);
    };
    const onEntry = (entry: yauzl.Entry) => {
      cleanup();
      resolve(entry);
    };
    const onEnd = () => {
      cleanup();
      resolve(undefined);
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    zip.on("entry", onEntry);
    zip.on("end", onEnd);
    zip.on("error", onError);
    zip.readEntry();
  });
}
