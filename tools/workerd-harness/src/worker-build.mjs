// How a Worker entry is bundled for workerd: shared by `pnpm demo` (apps/demo/scripts/demo.mjs), the bench and the
// workerd tests (bundle.ts), so all of them run the same kind of bundle.
import { builtinModules } from "node:module";

/** esbuild options for one Worker entry (add `outfile` / `write` as needed). */
export function workerBuildOptions(entry) {
  return {
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    // Workspace packages export their TypeScript sources under "@agent-tools/source".
    conditions: ["@agent-tools/source", "workerd", "worker", "browser"],
    // The neutral platform looks at no main fields by default; packages without an exports map need these.
    mainFields: ["module", "main"],
    // workerd provides cloudflare:* itself, and node:* under the nodejs_compat flag.
    external: ["cloudflare:*", "node:*"],
    // Durable Object classes are looked up by their exported names; RPC and some libraries also read
    // constructor.name at run time.
    keepNames: true,
    sourcemap: false,
    logLevel: "warning",
    plugins: [bareNodeBuiltins()],
  };
}

/** `import "buffer"` in a dependency means workerd's `node:buffer` (available under nodejs_compat). */
function bareNodeBuiltins() {
  const names = builtinModules.filter((name) => !name.startsWith("_") && !name.startsWith("node:"));
  const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  const pattern = new RegExp(`^(${names.map(escapeRegExp).join("|")})(/.*)?$`);
  return {
    name: "bare-node-builtins",
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: pattern }, (args) => ({ path: `node:${args.path}`, external: true }));
    },
  };
}
