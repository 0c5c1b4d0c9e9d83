// @ts-check
// How a README's first example runs in a consumer project, chosen by the example's runner attribute
// (docs/releasing.md, "The README example convention"):
//
// - `node` (the default): `npx tsx example.<ext>`; the output is its stdout.
// - `worker` (` ```ts worker path=/hello `): the example is a Worker module. It is bundled with esbuild from the
//   consumer project (so its imports resolve to the installed packages) and run in workerd through Miniflare; the
//   output is the text of a `GET <path>` (default `/`). Attributes: `path`, `compatibility-date`, and
//   `durable-objects=BINDING:Class,…` for the SQLite-backed Durable Object classes the module exports.
//
// A runner returns `{ ok, output, detail }`; `output` is compared with the README's ```text block by the caller.

import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";

/** The Workers compatibility date a `worker` example gets unless it names one. */
export const DEFAULT_COMPATIBILITY_DATE = "2026-07-30";

/**
 * @typedef {object} RunResult
 * @property {boolean} ok the example ran (exit code 0, or a 2xx response)
 * @property {string} output what it printed (stdout, or the response's text)
 * @property {string} detail what went wrong, or the stderr worth showing
 */

/**
 * Run a command without a shell; collect its output. Never rejects: a failure to start is a result.
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd: string, env?: NodeJS.ProcessEnv, timeoutMs?: number }} options
 * @returns {Promise<{ code: number | null, signal: NodeJS.Signals | null, stdout: string, stderr: string, error?: Error }>}
 */
export function run(command, args, options) {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
      shell: process.platform === "win32",
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk) => {
      stderr += chunk;
    });
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            stderr += `\n(killed after ${options.timeoutMs} ms)`;
            child.kill("SIGKILL");
          }, options.timeoutMs);
    child.on("error", (error) => {
      if (timer) clearTimeout(timer);
      resolve({ code: null, signal: null, stdout, stderr, error });
    });
    child.on("close", (code, signal) => {
      if (timer) clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/**
 * Normalize printed text for comparison: LF line ends, no trailing whitespace on lines or at the end.
 * @param {string} text
 */
export function normalizeOutput(text) {
  return text
    .replaceAll("\r\n", "\n")
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n")
    .trimEnd();
}

/**
 * @param {{ directory: string, example: import("./readme.mjs").ReadmeExample, env?: NodeJS.ProcessEnv }} options
 * @returns {Promise<RunResult>}
 */
export async function runNodeExample({ directory, example, env }) {
  await writeFile(path.join(directory, example.fileName), `${example.code}\n`);
  const result = await run("npx", ["tsx", example.fileName], {
    cwd: directory,
    env: { ...(env ?? process.env), NO_COLOR: "1", FORCE_COLOR: "0" },
    timeoutMs: 120_000,
  });
  const ok = result.code === 0;
  const detail = ok ? "" : (result.error?.message ?? `exit ${result.code ?? result.signal}\n${result.stderr.trim()}`);
  return { ok, output: result.stdout, detail };
}

/**
 * @param {{ directory: string, example: import("./readme.mjs").ReadmeExample }} options
 * @returns {Promise<RunResult>}
 */
export async function runWorkerExample({ directory, example }) {
  const [{ build }, { Log, LogLevel, Miniflare }] = await Promise.all([import("esbuild"), import("miniflare")]);
  const entry = path.join(directory, example.fileName);
  const outfile = path.join(directory, ".example-build", "worker.js");
  await writeFile(entry, `${example.code}\n`);
  await build({
    entryPoints: [entry],
    outfile,
    absWorkingDir: directory,
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    conditions: ["workerd", "worker", "browser", "import"],
    mainFields: ["module", "main"],
    external: ["cloudflare:*", "node:*"],
    logLevel: "silent",
  });
  /** @type {Record<string, { className: string, useSQLite: boolean }>} */
  const durableObjects = {};
  for (const pair of (example.attributes["durable-objects"] ?? "").split(",").filter(Boolean)) {
    const [binding, className] = pair.split(":");
    if (!binding || !className) throw new Error(`durable-objects=${pair}: expected BINDING:Class`);
    durableObjects[binding] = { className, useSQLite: true };
  }
  const miniflare = new Miniflare({
    modules: true,
    scriptPath: outfile,
    modulesRoot: path.dirname(outfile),
    compatibilityDate: example.attributes["compatibility-date"] ?? DEFAULT_COMPATIBILITY_DATE,
    compatibilityFlags: ["nodejs_compat"],
    durableObjects,
    cf: false,
    log: new Log(LogLevel.WARN),
  });
  try {
    const response = await miniflare.dispatchFetch(new URL(example.attributes["path"] ?? "/", "http://localhost"));
    const output = await response.text();
    return { ok: response.ok, output, detail: response.ok ? "" : `HTTP ${response.status}` };
  } finally {
    await miniflare.dispose();
  }
}

/**
 * Run an example with the runner it asks for.
 * @param {{ directory: string, example: import("./readme.mjs").ReadmeExample, env?: NodeJS.ProcessEnv }} options
 * @returns {Promise<RunResult>}
 */
export function runExample(options) {
  switch (options.example.runner) {
    case "node":
      return runNodeExample(options);
    case "worker":
      return runWorkerExample(options);
    default:
      return Promise.resolve({ ok: false, output: "", detail: `unknown runner "${options.example.runner}"` });
  }
}
