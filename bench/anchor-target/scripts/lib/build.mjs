// Bundles a Worker entry for Miniflare, the way the anchor harness does (same conditions, keepNames, externals),
// so that `pnpm bench` measures the same bundle the harness builds. Workspace packages resolve to their sources
// through bench/anchor-target/tsconfig.json `paths` (esbuild reads them); no `dist/` is needed. The reconcile entry
// also passes the `@agent-tools/source` condition: `@agent-tools/detached`'s own imports of core-runs need it.
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
 * @param {{ sourceCondition?: boolean }} [options] also resolve workspace packages through `@agent-tools/source`
 *   (for entries the harness never builds, whose packages have no `paths` entry to reach their sources)
 * @returns {Promise<string>} outfile
 */
export async function bundleWorker(entry, outfile, { sourceCondition = false } = {}) {
  await mkdir(dirname(outfile), { recursive: true });
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    external: ["cloudflare:*", "node:*"],
    conditions: [...(sourceCondition ? ["@agent-tools/source"] : []), "workerd", "worker", "browser", "import"],
    mainFields: ["module", "main"],
    keepNames: true,
    minify: false,
    sourcemap: false,
    logLevel: "warning",
    plugins: [bareNodeBuiltins],
  });
  return outfile;
}
