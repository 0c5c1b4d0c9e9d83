// Types for demo-config.mjs (a plain ES module run by Node without a build step).
import type { WorkerOptions } from "miniflare";

/** The demo Worker's settings from wrangler.jsonc, as Miniflare options. */
export type DemoConfig = {
  /** The Worker's entry (absolute): wrangler.jsonc's `main`. */
  main: string;
  /** The Worker's name. */
  name: string;
  compatibilityDate: string;
  compatibilityFlags: string[];
  /** Binding name → the Durable Object class and whether it is SQLite-backed (from the migrations). */
  durableObjects: Record<string, { className: string; useSQLite?: boolean }>;
  /** Plain bindings: the config's `vars` (and `.dev.vars` with `devVars`). */
  bindings: Record<string, unknown>;
  /** Miniflare's `assets` option (directory, binding, router config). */
  assets: NonNullable<WorkerOptions["assets"]> & { directory: string; binding: string };
};

export const WRANGLER_CONFIG: string;

export function readDemoConfig(options?: { devVars?: boolean }): DemoConfig;
