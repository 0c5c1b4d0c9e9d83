// Build the demo page (web/, Vite + React) into static files: by default into apps/demo/.web-build/, the assets
// directory of wrangler.jsonc, which Workers static assets serve in front of the Worker (locally through Miniflare's
// `assets` option, deployed by `wrangler deploy`).
//
// Used by `pnpm demo` (scripts/demo.mjs), `wrangler deploy`'s custom build (scripts/build-for-deploy.mjs) and the
// browser test; `node web/build.mjs` builds on its own.

import { readdir, readFile } from "node:fs/promises";
import { extname, join, relative, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const WEB_ROOT = fileURLToPath(new URL("./", import.meta.url));
export const WEB_CONFIG = fileURLToPath(new URL("./vite.config.ts", import.meta.url));
/** Where `pnpm demo` and `wrangler deploy` build the page (git-ignored): wrangler.jsonc's `assets.directory`. */
export const WEB_BUILD_DIRECTORY = fileURLToPath(new URL("../.web-build/", import.meta.url));
/**
 * Compatibility with the demo test harness's former JSON binding:
 * `startDemoHost(persist, { [WEB_ASSETS_BINDING]: await readWebAssets(dir) })` serves the page built in `dir`, as
 * `startDemoHost(persist, {}, { assetsDirectory: dir })` does. The Worker has no such binding any more.
 */
export const WEB_ASSETS_BINDING = "WEB_ASSETS";

const CONTENT_TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".json": "application/json",
  ".map": "application/json",
  ".txt": "text/plain; charset=utf-8",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
};
const TEXT_TYPES = /^(text\/|application\/json|image\/svg\+xml)/;

/** Build the page into `outDir` (default `.web-build/`) with Vite; resolves to `outDir`. */
export async function buildWebPage({ outDir = WEB_BUILD_DIRECTORY, logLevel = "warn" } = {}) {
  const { build } = await import("vite");
  // Vite builds React's development bundle when NODE_ENV says so (vitest sets "test"): always build what
  // `pnpm demo` serves.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = "production";
  try {
    await build({
      configFile: WEB_CONFIG,
      root: WEB_ROOT,
      mode: "production",
      logLevel,
      build: { outDir, emptyOutDir: true },
    });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
  return outDir;
}

/** The folder `readWebAssets` read each of its results from. */
const assetsDirectories = new WeakMap();

/**
 * The built files of `directory`, keyed by URL path (`/index.html`, `/assets/…`): text files as strings, others
 * base64; `null` when there is no build there (no index.html). Kept for the test harness's former `WEB_ASSETS`
 * binding (see `WEB_ASSETS_BINDING`); `webAssetsDirectory(result)` gives the folder back.
 */
export async function readWebAssets(directory = WEB_BUILD_DIRECTORY) {
  let names;
  try {
    names = await readdir(directory, { recursive: true, withFileTypes: true });
  } catch {
    return null;
  }
  const assets = {};
  for (const entry of names) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath ?? entry.path, entry.name);
    const key = `/${relative(directory, path).split(sep).join("/")}`;
    const contentType = CONTENT_TYPES[extname(entry.name)] ?? "application/octet-stream";
    const bytes = await readFile(path);
    assets[key] = TEXT_TYPES.test(contentType)
      ? { contentType, body: bytes.toString("utf8") }
      : { contentType, body: bytes.toString("base64"), encoding: "base64" };
  }
  if (!assets["/index.html"]) return null;
  assetsDirectories.set(assets, directory);
  return assets;
}

/** The folder a `readWebAssets` result was read from (`undefined` for any other object). */
export function webAssetsDirectory(assets) {
  return assetsDirectories.get(assets);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  buildWebPage({ logLevel: "info" }).then(
    (outDir) => process.stdout.write(`built the demo page into ${outDir}\n`),
    (error) => {
      process.stderr.write(`web build failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
