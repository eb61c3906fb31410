import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// In development the API server (make start, port 8080) serves everything that is not the SPA.
const backend = process.env.POLYFORGE_BACKEND_URL ?? "http://localhost:8080";

export default defineConfig({
  plugins: [react()],
  build: { outDir: "dist", emptyOutDir: true },
  server: {
    proxy: {
      "/api": { target: backend, ws: true, changeOrigin: false },
      "/auth": { target: backend, changeOrigin: false },
      "/config.json": { target: backend, changeOrigin: false },
    },
  },
});
