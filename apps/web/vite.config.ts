import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// In development (`npm run dev`) the API server on port 8080 serves everything that is not the SPA:
// the API and its socket, sign-in, the client config and the user guide.
const backend = process.env.POLYFORGE_BACKEND_URL ?? "http://localhost:8080";

export default defineConfig({
  plugins: [react()],
  // One React: the root package.json's overrides keep a single React 19 although Ketcher's miew-react
  // asks for 18; should a dependency still bring another copy, every import resolves from this app.
  resolve: { dedupe: ["react", "react-dom"] },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // ketcher-core's ES build loads Raphael with a bare require() (guarded by a window check); the
    // CommonJS plugin turns such calls in ES modules into imports, or the editor fails to load.
    commonjsOptions: { transformMixedEsModules: true },
  },
  server: {
    port: 5173,
    strictPort: true,
    proxy: {
      "/api": { target: backend, ws: true, changeOrigin: false },
      "/auth": { target: backend, changeOrigin: false },
      "/config.json": { target: backend, changeOrigin: false },
      "/docs": { target: backend, changeOrigin: false },
    },
  },
});
