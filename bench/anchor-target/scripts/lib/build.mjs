// Bundles a Worker entry for Miniflare, the way the anchor harness does (same esbuild options, keepNames, externals),
// plus one resolution rule: workspace packages resolve to their sources. The bench's own files reach them through
// bench/anchor-target/tsconfig.json `paths`; the packages' imports of each other (e.g. @agent-tools/cloudflare's
// adapters importing @agent-tools/core-runs by value) through the packages' `@agent-tools/source` export condition.
// So no `dist/` is needed and every module is bundled once, from source. The harness's own esbuild passes no such
// condition: there those imports resolve to packages/*/dist, which must be built first (README.md).
import { mkdir } from "node:fs/promises";
import { builtinModules } from "node:module";
import { dirname } from "node:path";
import { build } from "esbuild";

const NODE_BUILTINS = builtinModules.filter((name) => !name.startsWith("_") && !name.startsWith("node:"));
const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/** A dependency's `import "buffer"` means workerd's `node:buffer` (nodejs_compat), as wrangler does it. */
const bareNodeBuiltins = {
  name: "bare-node-builtins",
  setup(pluginBuild) {
    const filter = new RegExp(`^(${NODE_BUILTINS.map(escapeRegExp).join("|")})(/.*)?$`);
    pluginBuild.onResolve({ filter }, (args) => ({ path: `node:${args.path}`, external: true }));
  },
};

/**
 * @param {string} entry absolute path of the Worker's TypeScript entry
 * @param {string} outfile absolute path of the bundle
 * @returns {Promise<string>} outfile
 */
export async function bundleWorker(entry, outfile) {
  await mkdir(dirname(outfile), { recursive: true });
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    external: ["cloudflare:*", "node:*"],
    conditions: ["@agent-tools/source", "workerd", "worker", "browser", "import"],
    mainFields: ["module", "main"],
    keepNames: true,
    minify: false,
    sourcemap: false,
    logLevel: "warning",
    plugins: [bareNodeBuiltins],
  });
  return outfile;
}
