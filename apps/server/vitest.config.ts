import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    name: "server",
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Integration suites start their own server and database; run files one at a time on 2 cores.
    fileParallelism: false,
  },
});
