#!/usr/bin/env node
// wrangler.jsonc's custom build ("build.command"): `wrangler deploy` and `wrangler dev` run it in apps/demo before
// they bundle src/worker.ts.
//
// 1. Compile the workspace packages the Worker imports (`tsc -b`, incremental): wrangler bundles what they export
//    by default, their `dist/`, as in an app that installed them from the registry. (`pnpm demo` and the tests bundle
//    their TypeScript sources instead, through the `@agent-tools/source` condition.)
// 2. Build the page (web/, Vite) into the assets directory of wrangler.jsonc, `.web-build/`; DEMO_WEB_BUILD_DIR puts
//    it elsewhere (the deploy test does, with `wrangler deploy --assets` pointing at the same folder).

import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { buildWebPage, WEB_BUILD_DIRECTORY } from "../web/build.mjs";

const APP_DIRECTORY = fileURLToPath(new URL("../", import.meta.url));
const REPOSITORY_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** The `packages/*` folders of the workspace packages the Worker depends on (package.json `dependencies`). */
export function workspaceDependencyFolders() {
  const manifest = JSON.parse(readFileSync(join(APP_DIRECTORY, "package.json"), "utf8"));
  return Object.entries(manifest.dependencies ?? {})
    .filter(([name, version]) => name.startsWith("@agent-tools/") && String(version).startsWith("workspace:"))
    .map(([name]) => join(REPOSITORY_ROOT, "packages", name.slice("@agent-tools/".length)));
}

/** `tsc -b` over those packages (their project references bring in what they depend on). */
export function compilePackages(folders = workspaceDependencyFolders()) {
  const require = createRequire(import.meta.url);
  const typescript = dirname(require.resolve("typescript/package.json"));
  const tsc = join(typescript, JSON.parse(readFileSync(join(typescript, "package.json"), "utf8")).bin.tsc);
  const result = spawnSync(process.execPath, [tsc, "-b", ...folders], { cwd: REPOSITORY_ROOT, stdio: "inherit" });
  if (result.status !== 0) throw new Error(`tsc -b failed (${result.error?.message ?? `exit ${result.status}`})`);
}

async function main() {
  const outDir = process.env.DEMO_WEB_BUILD_DIR || WEB_BUILD_DIRECTORY;
  process.stdout.write("compiling the workspace packages (tsc -b)…\n");
  compilePackages();
  process.stdout.write(`building the page into ${outDir}…\n`);
  await buildWebPage({ outDir });
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error) => {
    process.stderr.write(`build-for-deploy: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
