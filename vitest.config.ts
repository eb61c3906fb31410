import { defineConfig } from "vitest/config";

// One vitest run for every TypeScript workspace; each keeps its own config.
export default defineConfig({
  test: {
    projects: ["packages/contracts", "apps/server", "apps/web"],
  },
});
