#!/usr/bin/env node
// `pnpm demo`: bundle the demo Worker and run it locally in workerd through Miniflare, with Durable Object
// storage persisted in apps/demo/.demo-data/ (kept across restarts; `--reset` wipes it first).
//
// The Worker's settings come from apps/demo/wrangler.jsonc, the file `wrangler deploy` reads (scripts/demo-config.mjs):
// its entry, the Durable Object bindings (SQLite-backed), the compatibility settings, the variables, and the static
// assets (the page, served in front of the Worker except for `/agents/*` and `/plain.html`).
//
// Environment: PORT (default 8787); DEMO_DATA_DIR (default apps/demo/.demo-data/); OPENAI_API_KEY, OPENAI_MODEL,
// AGENT_TOOLS_RUN_TOKEN_SECRET, DEMO_PACE_MS, DEBUG are passed to the Worker as bindings when set (over
// apps/demo/.dev.vars, read as `wrangler dev` does, over the config's `vars`).
//
// A port already in use ends it at once with one line and exit code 1 (0 under `pnpm demo`, so that pnpm adds no
// failure line of its own). Ctrl-C (SIGINT) disposes Miniflare and exits
// 0. (The `demo` scripts in package.json start it with `trap '' INT; exec node …`: Ctrl-C reaches every process of
// the terminal's group, and the shells pnpm runs scripts in would otherwise die of it at once, which pnpm reports as
// a failed command while the demo is still shutting down. Node installs its own SIGINT handler all the same.)
//
// The page at `/` is the React app of web/, built first with Vite into the config's assets directory
// (apps/demo/.web-build/, web/build.mjs). `--no-web` skips the build and serves what is there from an earlier one;
// with nothing there (or after a failed build, with a warning), `/` answers a one-line hint instead of the page.

import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { workerBuildOptions } from "@agent-tools/workerd-harness/worker-build";
import { build } from "esbuild";
import { Log, LogLevel, Miniflare } from "miniflare";
import { buildWebPage } from "../web/build.mjs";
import { readDemoConfig } from "./demo-config.mjs";

/** Environment variables passed through to the Worker as bindings when set. */
export const PASSED_ENV = ["OPENAI_API_KEY", "OPENAI_MODEL", "AGENT_TOOLS_RUN_TOKEN_SECRET", "DEMO_PACE_MS", "DEBUG"];

export const HOST = "127.0.0.1";
export const DEFAULT_PORT = 8787;

const APP_DIRECTORY = fileURLToPath(new URL("../", import.meta.url));
export const BUILD_FILE = fileURLToPath(new URL("../.demo-build/worker.js", import.meta.url));
/** Durable Object storage, kept across restarts; DEMO_DATA_DIR puts it elsewhere (the demo script's tests do). */
export const DATA_DIRECTORY = process.env.DEMO_DATA_DIR || fileURLToPath(new URL("../.demo-data/", import.meta.url));

/**
 * Bundle the Worker (wrangler.jsonc's `main`) into one ES module (options shared with the workerd tests:
 * @agent-tools/workerd-harness).
 */
export async function bundleDemoWorker(entry = readDemoConfig().main, outfile = BUILD_FILE) {
  await build({ ...workerBuildOptions(entry), outfile, absWorkingDir: APP_DIRECTORY });
  return outfile;
}

/** The bindings taken from the environment (only the variables that are set). */
export function environmentBindings(env = process.env) {
  return Object.fromEntries(PASSED_ENV.filter((name) => env[name] !== undefined).map((name) => [name, env[name]]));
}

/**
 * Build the React page into `outDir` (the config's assets directory); false (and a warning) when the build fails,
 * so the demo still starts.
 */
export async function buildDemoPage(outDir) {
  try {
    await buildWebPage({ outDir });
    return true;
  } catch (error) {
    process.stderr.write(
      `warning: the React page did not build (${error instanceof Error ? error.message : String(error)}); ` +
        "`/` will answer a hint instead of the page\n",
    );
    return false;
  }
}

/**
 * Miniflare's options for the demo: everything wrangler.jsonc says (`config`, from `readDemoConfig`), with the
 * bundled Worker, the local storage folder, the listening address, and the bindings taken from `env`.
 */
export function demoOptions({
  scriptPath = BUILD_FILE,
  port = DEFAULT_PORT,
  env = process.env,
  config = readDemoConfig({ devVars: true }),
} = {}) {
  return {
    modules: true,
    scriptPath,
    compatibilityDate: config.compatibilityDate,
    compatibilityFlags: config.compatibilityFlags,
    durableObjects: config.durableObjects,
    durableObjectsPersist: DATA_DIRECTORY,
    bindings: { ...config.bindings, ...environmentBindings(env) },
    assets: config.assets,
    // A placeholder Request.cf instead of fetching one: this machine may be offline.
    cf: false,
    host: HOST,
    port,
    log: new Log(LogLevel.WARN),
  };
}

/**
 * Exit with `code` once the event loop drains (so Miniflare's fire-and-forget removal of its temporary folder
 * completes), or after two seconds if something still holds it open.
 */
function exitSoon(code) {
  process.exitCode = code;
  setTimeout(() => process.exit(code), 2_000).unref();
}

/**
 * Whether something already listens on `host:port` (so workerd could not bind it): try to bind it ourselves, and let
 * it go at once. Port 0 (any free port) is never in use.
 */
export function isPortInUse(port, host = HOST) {
  if (port === 0) return Promise.resolve(false);
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", (error) => (error.code === "EADDRINUSE" ? resolve(true) : reject(error)));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(false)));
  });
}

/** The one line a busy port gets. */
export function portInUseMessage(port) {
  return `demo: port ${port} is in use on ${HOST}: stop the server that holds it, or run with PORT=<another port>`;
}

/**
 * The exit code after that line: 1, except under `pnpm demo`, where any other code than 0 makes pnpm print a failure
 * line of its own (" ELIFECYCLE  Command failed with exit code 1.") under the one that says what to do.
 */
export function portInUseExitCode(env = process.env) {
  return env.npm_lifecycle_event === "demo" ? 0 : 1;
}

function parsePort(value) {
  if (value === undefined || value === "") return DEFAULT_PORT;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`PORT must be a port number, got ${value}`);
  return port;
}

async function main() {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      reset: { type: "boolean", default: false },
      "no-web": { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(
      "usage: pnpm demo [--reset] [--no-web]   (PORT=8787; --reset wipes apps/demo/.demo-data first; " +
        "--no-web skips building the React page and serves the last build, if any)\n",
    );
    return;
  }
  const port = parsePort(process.env.PORT);
  // Before anything else: workerd would only find out after the build, and print a stack trace of its own first.
  if (await isPortInUse(port)) {
    process.stderr.write(`${portInUseMessage(port)}\n`);
    exitSoon(portInUseExitCode());
    return;
  }
  if (values.reset) {
    await rm(DATA_DIRECTORY, { recursive: true, force: true });
    process.stdout.write(`wiped ${DATA_DIRECTORY}\n`);
  }

  const config = readDemoConfig({ devVars: true });
  if (!existsSync(config.main)) throw new Error(`the demo Worker is missing: ${config.main}`);
  const pageDirectory = config.assets.directory;
  if (!values["no-web"]) {
    process.stdout.write("building the demo page…\n");
    await buildDemoPage(pageDirectory);
  } else if (!existsSync(join(pageDirectory, "index.html"))) {
    process.stdout.write(`no page built in ${pageDirectory} (--no-web): \`/\` answers a hint instead\n`);
  }
  process.stdout.write("building the demo Worker…\n");
  const scriptPath = await bundleDemoWorker(config.main);
  const signals = ["SIGINT", "SIGTERM"];
  const listenersBefore = new Map(signals.map((signal) => [signal, new Set(process.listeners(signal))]));
  const miniflare = new Miniflare(demoOptions({ scriptPath, port, config }));
  // Miniflare's own exit hook answers these signals by killing workerd and exiting at once (130 / 143); replace
  // it with a graceful dispose. (Its process "exit" hook stays, as a last resort.)
  for (const signal of signals) {
    for (const listener of process.listeners(signal)) {
      if (!listenersBefore.get(signal)?.has(listener)) process.removeListener(signal, listener);
    }
  }

  let stopping = false;
  const stop = async (signal) => {
    if (stopping) {
      process.stderr.write(`${signal} again: exiting without waiting\n`);
      process.exit(1);
    }
    stopping = true;
    process.stdout.write(`\n${signal}: stopping the demo…\n`);
    try {
      await miniflare.dispose();
    } catch (error) {
      process.stderr.write(`dispose failed: ${error instanceof Error ? error.message : String(error)}\n`);
    }
    // Let Miniflare's fire-and-forget clean-up of its temporary folder finish, but do not wait on stray handles.
    exitSoon(0);
  };
  for (const signal of signals) process.on(signal, () => void stop(signal));

  let url;
  try {
    url = await miniflare.ready;
  } catch (error) {
    await miniflare.dispose().catch(() => undefined);
    const message = error instanceof Error ? error.message : String(error);
    // Taken between the check above and workerd's bind: the same one line (after workerd's own report).
    if (/in use/i.test(message)) {
      process.stderr.write(`${portInUseMessage(port)}\n`);
      exitSoon(portInUseExitCode());
      return;
    }
    throw new Error(`the demo did not start: ${message}`);
  }
  const shown = new URL(url);
  shown.hostname = HOST;
  process.stdout.write(`agent-tools demo running at http://${HOST}:${shown.port}/\n`);
  process.stdout.write(`data: ${DATA_DIRECTORY}  ·  try: pnpm demo:chat "research cats"  ·  Ctrl-C to stop\n`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error) => {
    process.stderr.write(`demo: ${error instanceof Error ? error.message : String(error)}\n`);
    exitSoon(1);
  });
}
