// The demo Worker's settings, read from wrangler.jsonc by wrangler itself, as Miniflare options: `pnpm demo`
// (scripts/demo.mjs) and the workerd tests (test/harness/demo.ts) run the Worker with them, and `wrangler deploy`
// reads the same file. So the Durable Object bindings (SQLite-backed from the migrations' `new_sqlite_classes`), the
// compatibility settings, the variables and the static assets (directory, binding, `run_worker_first`) are written
// once, in wrangler.jsonc.
//
// wrangler's `unstable_readConfig` parses and validates the file (JSONC), and `unstable_getMiniflareWorkerOptions`
// turns it into Miniflare worker options, offline. Both are wrangler's own (prefixed `unstable_`; wrangler is pinned
// in package.json, and the tests catch a change). Their options target wrangler's Miniflare (5); the fields taken
// here have the same shape in Miniflare 4, which we run (docs/architecture.md, "Toolchain").

import { fileURLToPath } from "node:url";
import { unstable_getMiniflareWorkerOptions, unstable_readConfig } from "wrangler";

/** The configuration file (apps/demo/wrangler.jsonc). */
export const WRANGLER_CONFIG = fileURLToPath(new URL("../wrangler.jsonc", import.meta.url));

/**
 * The Worker's settings from wrangler.jsonc: its entry (`main`), and Miniflare options for it (plain data).
 *
 * `devVars`: also read `.dev.vars` (or `.env`) beside the config, as `wrangler dev` does (`pnpm demo` does; the
 * tests do not, so that a developer's secrets never reach them). Default false: the config's `vars` only.
 */
export function readDemoConfig({ devVars = false } = {}) {
  const config = unstable_readConfig({ config: WRANGLER_CONFIG });
  const { workerOptions, main } = unstable_getMiniflareWorkerOptions(config);
  const { assets } = workerOptions;
  if (!main) throw new Error(`${WRANGLER_CONFIG} names no "main"`);
  if (!assets?.binding) throw new Error(`${WRANGLER_CONFIG} names no assets binding`);
  return {
    main,
    name: config.name,
    compatibilityDate: workerOptions.compatibilityDate,
    compatibilityFlags: [...(workerOptions.compatibilityFlags ?? [])],
    /** Binding name → `{ className, useSQLite }`. */
    durableObjects: workerOptions.durableObjects ?? {},
    /** The config's `vars` (and, with `devVars`, the secrets of `.dev.vars`) as plain bindings. */
    bindings: devVars ? { ...workerOptions.bindings } : { ...config.vars },
    /** Miniflare's `assets` option: the directory, the binding, and the router (which paths reach the Worker first). */
    assets: {
      directory: assets.directory,
      binding: assets.binding,
      routerConfig: assets.routerConfig,
      assetConfig: assets.assetConfig,
    },
  };
}
