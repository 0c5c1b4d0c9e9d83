import { createHash } from "node:crypto";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { builtinModules } from "node:module";
import { basename, extname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";

/** Where bundles are written (git-ignored). */
export const TEST_BUILD_DIRECTORY = fileURLToPath(new URL("../../.test-build/", import.meta.url));

const bundles = new Map<string, Promise<string>>();

/**
 * Bundle a Worker entry (TypeScript, workspace packages resolved to their sources) into one ES module under
 * `.test-build/`, and return its absolute path, for `MiniflareHost`'s `scriptPath`.
 *
 * Cached per entry for the life of the process, so each test file bundles once. The file name is
 * derived from the entry's path; it is written to a temporary name and renamed, so test files bundling the same
 * entry in parallel never read a half-written file.
 */
export function bundleWorker(entry: string): Promise<string> {
  const entryPath = resolve(entry);
  let bundle = bundles.get(entryPath);
  if (bundle === undefined) {
    bundle = buildWorker(entryPath);
    bundles.set(entryPath, bundle);
    // A failed build is not cached: the next call retries.
    bundle.catch(() => bundles.delete(entryPath));
  }
  return bundle;
}

async function buildWorker(entryPath: string): Promise<string> {
  // Named after the entry, with a hash of its path so two entries called worker.ts do not collide.
  const hash = createHash("sha256").update(entryPath).digest("hex").slice(0, 12);
  const outfile = join(TEST_BUILD_DIRECTORY, `${basename(entryPath, extname(entryPath))}-${hash}.js`);
  const result = await build({
    entryPoints: [entryPath],
    outfile,
    write: false,
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
  });
  const [output] = result.outputFiles;
  if (output === undefined) throw new Error(`esbuild wrote nothing for ${entryPath}`);
  await mkdir(TEST_BUILD_DIRECTORY, { recursive: true });
  const temporary = `${outfile}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(temporary, output.contents);
  await rename(temporary, outfile);
  return outfile;
}

/** `import "buffer"` in a dependency means workerd's `node:buffer` (available under nodejs_compat). */
function bareNodeBuiltins(): Plugin {
  const names = builtinModules.filter((name) => !name.startsWith("_") && !name.startsWith("node:"));
  const pattern = new RegExp(`^(${names.map(escapeRegExp).join("|")})(/.*)?$`);
  return {
    name: "bare-node-builtins",
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: pattern }, (args) => ({ path: `node:${args.path}`, external: true }));
    },
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
