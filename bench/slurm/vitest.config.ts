import { defineConfig } from "vitest/config";

// The executor benchmark runs on its own (not part of `make test`): it takes minutes of real jobs.
export default defineConfig({
  test: {
    name: "bench-slurm",
    root: import.meta.dirname,
    include: ["*.bench.test.ts"],
    testTimeout: 1_800_000,
    hookTimeout: 120_000,
  },
});
