import { resolve } from "node:path";

/** The repository's root directory (this file is apps/server/src/platform/paths.ts). */
export const REPO_ROOT = resolve(import.meta.dirname, "../../../..");

/** The drizzle-kit migrations applied at start. */
export const MIGRATIONS_DIR = resolve(REPO_ROOT, "apps/server/migrations");

/** The engine's Python (the `.venv` that `make start` creates). */
export const ENGINE_PYTHON = resolve(REPO_ROOT, ".venv/bin/python");

/** The GrowthBook-format feature file served at /api/features/{clientKey}. */
export const FEATURES_FILE = resolve(REPO_ROOT, "deploy/growthbook/features.json");
