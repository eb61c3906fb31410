import { basename, resolve } from "node:path";
import { fileExtension } from "@polyforge/contracts/uploads";

/** The repository's root directory (this file is apps/server/src/platform/paths.ts). */
export const REPO_ROOT = resolve(import.meta.dirname, "../../../..");

/** The drizzle-kit migrations applied at start. */
export const MIGRATIONS_DIR = resolve(REPO_ROOT, "apps/server/migrations");

/** The engine's Python: POLYFORGE_ENGINE_PYTHON (a worker on another machine has its own), else the
 * `.venv` that `make start` creates in this checkout. */
export const ENGINE_PYTHON = enginePython(process.env.POLYFORGE_ENGINE_PYTHON);

export function enginePython(setting: string | undefined): string {
  return setting?.trim() ? resolve(setting.trim()) : resolve(REPO_ROOT, ".venv/bin/python");
}

/** The GrowthBook-format feature file served at /api/features/{clientKey}. */
export const FEATURES_FILE = resolve(REPO_ROOT, "deploy/growthbook/features.json");

/** A user's file name as a name in a work directory: its last part only, each run of characters other
 * than letters, digits, `_`, `.` and `-` as `_`; `stem` before a name that would be hidden (`.x`)
 * and, with the name's extension, in place of an empty one. */
export function safeFileName(name: string, stem: string): string {
  const cleaned = basename(name).replace(/[^\w.-]+/g, "_");
  return cleaned.startsWith(".") ? `${stem}${cleaned}` : cleaned || `${stem}${fileExtension(name)}`;
}
