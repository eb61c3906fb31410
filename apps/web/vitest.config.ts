import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [react()],
  // One React: the root node_modules holds React 18 for a dependency's sake (see vite.config.ts).
  resolve: { dedupe: ["react", "react-dom"] },
  test: {
    // …which reaches the libraries only when vite, not Node, resolves their imports.
    server: {
      deps: {
        inline: [
          /@mantine\//,
          /@testing-library\/react/,
          /@tanstack\/react-/,
          /@growthbook\/growthbook-react/,
          /react-i18next/,
          /sonner/,
          /@floating-ui\/react/,
          /react-remove-scroll/,
          /react-textarea-autosize/,
          /react-number-format/,
          /use-callback-ref/,
          /use-sidecar/,
          /react-style-singleton/,
          /use-composed-ref/,
          /use-latest/,
          /use-isomorphic-layout-effect/,
          /@tabler\/icons-react/,
        ],
      },
    },
    name: "web",
    environment: "jsdom",
    globals: true,
    include: ["src/**/*.test.ts", "src/**/*.test.tsx"],
    setupFiles: ["src/test/setup.ts"],
    // Generous for a loaded CI machine; no test asserts speed.
    testTimeout: 30_000,
  },
});
