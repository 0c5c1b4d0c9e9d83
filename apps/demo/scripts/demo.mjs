#!/usr/bin/env node
// `pnpm demo`: bundle the demo Worker and run it locally in workerd through Miniflare, with Durable Object
// storage persisted in apps/demo/.demo-data/ (kept across restarts; `--reset` wipes it first).
//
// Environment: PORT (default 8787); DEMO_DATA_DIR (default apps/demo/.demo-data/); OPENAI_API_KEY, OPENAI_MODEL, DEMO_PACE_MS, DEBUG are passed to the Worker
// as bindings when set.
//
// A port already in use ends it at once with one line and exit code 1. Ctrl-C (SIGINT) disposes Miniflare and exits
// 0. (The `demo` scripts in package.json start it with `trap '' INT; exec node …`: Ctrl-C reaches every process of
// the terminal's group, and the shells pnpm runs scripts in would otherwise die of it at once, which pnpm reports as
// a failed command while the demo is still shutting down. Node installs its own SIGINT handler all the same.)
//
// The page at `/` is the React app of web/, built first with Vite into apps/demo/.web-build/ and handed to the
// Worker as its WEB_ASSETS binding (web/build.mjs); `--no-web` skips that, and so does a failed build (with a
// warning): the Worker then serves its plain fallback page (src/page.ts).

import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { createServer } from "node:net";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { workerBuildOptions } from "@agent-tools/workerd-harness/worker-build";
import { build } from "esbuild";
import { Log, LogLevel, Miniflare } from "miniflare";
import { buildWebPage, readWebAssets, WEB_ASSETS_BINDING } from "../web/build.mjs";

/** Binding name → Durable Object class exported by the Worker (all SQLite-backed). */
export const DURABLE_OBJECTS = {
  ASSISTANT: { className: "Assistant", useSQLite: true },
  RESEARCHER: { className: "Researcher", useSQLite: true },
  SUMMARIZER: { className: "Summarizer", useSQLite: true },
  IMPORTER: { className: "Importer", useSQLite: true },
};

/** Environment variables passed through to the Worker as bindings when set. */
export const PASSED_ENV = ["OPENAI_API_KEY", "OPENAI_MODEL", "DEMO_PACE_MS", "DEBUG"];

export const COMPATIBILITY_DATE = "2026-04-20";
export const COMPATIBILITY_FLAGS = ["nodejs_compat"];
export const HOST = "127.0.0.1";
export const DEFAULT_PORT = 8787;

const APP_DIRECTORY = fileURLToPath(new URL("../", import.meta.url));
export const ENTRY = fileURLToPath(new URL("../src/worker.ts", import.meta.url));
export const BUILD_FILE = fileURLToPath(new URL("../.demo-build/worker.js", import.meta.url));
/** Durable Object storage, kept across restarts; DEMO_DATA_DIR puts it elsewhere (the demo script's tests do). */
export const DATA_DIRECTORY = process.env.DEMO_DATA_DIR || fileURLToPath(new URL("../.demo-data/", import.meta.url));

/** Bundle the Worker into one ES module (options shared with the workerd tests: @agent-tools/workerd-harness). */
export async function bundleDemoWorker(entry = ENTRY, outfile = BUILD_FILE) {
  await build({ ...workerBuildOptions(entry), outfile, absWorkingDir: APP_DIRECTORY });
  return outfile;
}

/** The bindings taken from the environment (only the variables that are set). */
export function environmentBindings(env = process.env) {
  return Object.fromEntries(PASSED_ENV.filter((name) => env[name] !== undefined).map((name) => [name, env[name]]));
}

/**
 * Build the React page and read it back as the Worker's WEB_ASSETS binding value; `null` (and a warning) when the
 * build fails, so the demo still starts with the plain page.
 */
export async function buildDemoPage() {
  try {
    return await readWebAssets(await buildWebPage());
  } catch (error) {
    process.stderr.write(
      `warning: the React page did not build (${error instanceof Error ? error.message : String(error)}); ` +
        "serving the plain page instead\n",
    );
    return null;
  }
}

/** Miniflare's options for the demo; `webAssets` (from `buildDemoPage`) is the page served at `/`. */
export function demoOptions({
  scriptPath = BUILD_FILE,
  port = DEFAULT_PORT,
  env = process.env,
  webAssets = null,
} = {}) {
  return {
    modules: true,
    scriptPath,
    compatibilityDate: COMPATIBILITY_DATE,
    compatibilityFlags: [...COMPATIBILITY_FLAGS],
    durableObjects: DURABLE_OBJECTS,
    durableObjectsPersist: DATA_DIRECTORY,
    bindings: { ...environmentBindings(env), ...(webAssets ? { [WEB_ASSETS_BINDING]: webAssets } : {}) },
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
        "--no-web skips building the React page and serves the plain one)\n",
    );
    return;
  }
  const port = parsePort(process.env.PORT);
  if (!existsSync(ENTRY)) throw new Error(`the demo Worker is missing: ${ENTRY}`);
  // Before anything else: workerd would only find out after the build, and print a stack trace of its own first.
  if (await isPortInUse(port)) {
    process.stderr.write(`${portInUseMessage(port)}\n`);
    exitSoon(1);
    return;
  }
  if (values.reset) {
    await rm(DATA_DIRECTORY, { recursive: true, force: true });
    process.stdout.write(`wiped ${DATA_DIRECTORY}\n`);
  }

  let webAssets = null;
  if (!values["no-web"]) {
    process.stdout.write("building the demo page…\n");
    webAssets = await buildDemoPage();
  }
  process.stdout.write("building the demo Worker…\n");
  const scriptPath = await bundleDemoWorker();
  const signals = ["SIGINT", "SIGTERM"];
  const listenersBefore = new Map(signals.map((signal) => [signal, new Set(process.listeners(signal))]));
  const miniflare = new Miniflare(demoOptions({ scriptPath, port, webAssets }));
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
      exitSoon(1);
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
