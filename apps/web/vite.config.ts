import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// In development the API server (make start, port 8080) serves everything that is not the SPA.
const backend = process.env.POLYFORGE_BACKEND_URL ?? "http://localhost:8080";

export default defineConfig({
  plugins: [react()],
  // The lockfile hoists React 18 to the root node_modules for a dependency's sake, and React 19 (ours)
  // sits in apps/web/node_modules: libraries at the root (Mantine, TanStack, testing-library) would
  // otherwise import the other copy. Every import of React resolves from this app.
  resolve: { dedupe: ["react", "react-dom"] },
  build: { outDir: "dist", emptyOutDir: true },
  server: {
    proxy: {
      "/api": { target: backend, ws: true, changeOrigin: false },
      "/auth": { target: backend, changeOrigin: false },
      "/config.json": { target: backend, changeOrigin: false },
    },
  },
});
