import { stat } from "node:fs/promises";
import { basename, resolve, sep } from "node:path";
import type { ResultFile } from "@polyforge/contracts/system-executions";
import type { FileStore } from "../storage/file-store";

/** The files an engine's result names (ARCHITECTURE §6): `files` as {label: path} or [path]. */
export function resultPaths(payload: Record<string, unknown>): string[] {
  const files = payload.files;
  const values = Array.isArray(files) ? files : files && typeof files === "object" ? Object.values(files) : [];
  return values.filter((value): value is string => typeof value === "string");
}

/**
 * Puts the files a result names into the file store, each under `keyOf(its name)`, once per name:
 * only files the engine wrote inside its work directory (a path that leaves it, or names no file,
 * is skipped). Answers them with their sizes, in the result's order.
 */
export async function storeResultFiles(
  store: FileStore,
  workdir: string,
  payload: Record<string, unknown>,
  keyOf: (name: string) => string,
): Promise<ResultFile[]> {
  const stored: ResultFile[] = [];
  const root = resolve(workdir);
  for (const relativePath of resultPaths(payload)) {
    const path = resolve(root, relativePath);
    if (!path.startsWith(root + sep)) continue;
    if (!(await stat(path).catch(() => undefined))?.isFile()) continue;
    const name = basename(path);
    if (stored.some((file) => file.name === name)) continue;
    stored.push({ name, size: await store.put(keyOf(name), path) });
  }
  return stored;
}
