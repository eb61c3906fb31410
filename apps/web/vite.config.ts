import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";

// In development (`npm run dev`) the API server on port 8080 serves everything that is not the SPA:
// the API and its socket, sign-in, the client config and the user guide.
const backend = process.env.POLYFORGE_BACKEND_URL ?? "http://localhost:8080";

/** Files worth compressing: text and WebAssembly of at least 1 KB. */
const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|wasm|txt|xml|map)$/;

/**
 * Brotli and gzip copies of the build's text and WebAssembly files beside them (`x.js.br`,
 * `x.js.gz`), made once at build time; the server sends them to clients that
 * accept them instead of compressing on every request (issue 27; platform/web.ts, preCompressed).
 */
function precompress(): Plugin {
  let outDir = "dist";
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? walk(path) : [path];
    });
  return {
    name: "polyforge-precompress",
    apply: "build",
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      for (const path of walk(outDir)) {
        if (!COMPRESSIBLE.test(path) || statSync(path).size < 1024) continue;
        const content = readFileSync(path);
        // Brotli's best level costs seconds per megabyte: files past 1 MB (the WebAssembly, the
        // editor) take level 6 (1 MB of RDKit's WebAssembly: 335 KB in 0.17 s against 293 KB in 8.3 s).
        const quality = content.length > 1_000_000 ? 6 : 11;
        writeFileSync(
          `${path}.br`,
          brotliCompressSync(content, { params: { [constants.BROTLI_PARAM_QUALITY]: quality } }),
        );
        writeFileSync(`${path}.gz`, gzipSync(content, { level: 9 }));
      }
    },
  };
}

export default defineConfig({
  plugins: [react(), precompress()],
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
