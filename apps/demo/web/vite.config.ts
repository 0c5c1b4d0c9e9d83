import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

// The demo page: React 19 with Vite's built-in TSX transform (no Fast Refresh plugin). `pnpm demo` builds it into
// `.web-build/` (web/build.mjs), which wrangler.jsonc serves as the Worker's static assets.
// `pnpm --filter @agent-tools/demo dev:web` serves it from Vite with hot reload instead, proxying the agent routes to
// a running `pnpm demo` (DEMO_URL, default :8787).
const DEMO_URL = process.env["DEMO_URL"] ?? "http://127.0.0.1:8787";

export default defineConfig({
  root: fileURLToPath(new URL("./", import.meta.url)),
  base: "/",
  // Workspace packages resolve to their TypeScript sources; these conditions replace Vite's defaults, so they repeat them.
  resolve: { conditions: ["@agent-tools/source", "module", "browser", "development|production"] },
  oxc: { jsx: { runtime: "automatic", importSource: "react" } },
  build: {
    outDir: fileURLToPath(new URL("../.web-build/", import.meta.url)),
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
    // React, the AI SDK and the hooks in a single ~100 kB (gzip) script per page are fine.
    chunkSizeWarningLimit: 1024,
    rolldownOptions: {
      // Two pages: the demo (index.html) and the stock-useChat page of the PlainChatAssistant (plain.html).
      input: {
        main: fileURLToPath(new URL("./index.html", import.meta.url)),
        plain: fileURLToPath(new URL("./plain.html", import.meta.url)),
      },
      onwarn(warning, warn) {
        // React libraries mark modules "use client"; that means nothing in a client-only bundle.
        if (warning.code === "MODULE_LEVEL_DIRECTIVE") return;
        warn(warning);
      },
    },
  },
  server: {
    proxy: { "/agents": { target: DEMO_URL, ws: true, changeOrigin: true } },
  },
});
