// @ts-check
// How a README's first example runs in a consumer project, chosen by the example's runner attribute
// (docs/releasing.md, "The README example convention"):
//
// - `node` (the default): `npx tsx example.<ext>`; the output is its stdout.
// - `wrangler` (` ```ts wrangler path=/hello `): the example is a Worker module, run as the README tells a user to:
//   the README's wrangler.jsonc (its first ```jsonc block after the example) written verbatim, the module saved where
//   the config's `main` says, `npx wrangler dev` with the wrangler the README's install line put in the project; the
//   output is the text of a `GET <path>` (default `/`).
//
// A runner returns `{ ok, output, detail }`; `output` is compared with the README's ```text block by the caller.

import { spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import path from "node:path";

/**
 * @typedef {object} RunResult
 * @property {boolean} ok the example ran (exit code 0, or a 2xx response)
 * @property {string} output what it printed (stdout, or the response's text)
 * @property {string} detail what went wrong, or the stderr worth showing
 * @property {string} [log] what the host printed, for the step's log (a runner that starts one)
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

/** How long `wrangler dev` may take to say it is ready (a first run compiles the Worker and starts workerd). */
const WRANGLER_READY_TIMEOUT_MS = 120_000;

/**
 * The `main` of a wrangler.jsonc: where the Worker module goes.
 * @param {string} config the file's text
 */
export function wranglerMain(config) {
  const main = /"main"\s*:\s*"([^"]+)"/.exec(config)?.[1];
  if (main === undefined) throw new Error('the README\'s wrangler.jsonc names no "main" (the Worker module to run)');
  return main;
}

/** A TCP port nobody listens on now on 127.0.0.1 (the OS picks it; released at once). */
async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(undefined)));
  const address = server.address();
  await new Promise((resolve) => server.close(() => resolve(undefined)));
  if (address === null || typeof address === "string") throw new Error("no free port");
  return address.port;
}

/**
 * The environment wrangler runs in for these checks: no colours, no metrics, its settings in the project's folder.
 * @param {string} directory the project
 * @param {NodeJS.ProcessEnv} [env]
 */
export function wranglerEnvironment(directory, env) {
  return {
    ...(env ?? process.env),
    NO_COLOR: "1",
    FORCE_COLOR: "0",
    WRANGLER_SEND_METRICS: "false",
    XDG_CONFIG_HOME: path.join(directory, ".config"),
  };
}

/**
 * A README's Worker module as the README says to run it: the README's wrangler.jsonc written verbatim, the example
 * saved where its `main` says, `npx wrangler dev` (with the wrangler the README installs), then `GET <path>`.
 * Offline and local: `--local` (no remote bindings), metrics off, wrangler's settings in the project's folder.
 *
 * @param {{ directory: string, example: import("./readme.mjs").ReadmeExample, env?: NodeJS.ProcessEnv }} options
 * @returns {Promise<RunResult>}
 */
export async function runWranglerExample({ directory, example, env }) {
  if (example.config === null) throw new Error("the README has no ```jsonc block (its wrangler.jsonc)");
  await writeFile(path.join(directory, "wrangler.jsonc"), `${example.config}\n`);
  const main = path.join(directory, wranglerMain(example.config));
  await mkdir(path.dirname(main), { recursive: true });
  await writeFile(main, `${example.code}\n`);
  const port = await freePort();
  const args = ["wrangler", "dev", "--local", "--ip", "127.0.0.1", "--port", String(port)];
  const dev = spawn("npx", [...args, "--show-interactive-dev-session=false"], {
    cwd: directory,
    env: wranglerEnvironment(directory, env),
    stdio: ["ignore", "pipe", "pipe"],
    // Its own process group: npx, wrangler and workerd are stopped together.
    detached: process.platform !== "win32",
  });
  let log = "";
  const exited = new Promise((resolve) => {
    dev.on("error", (error) => resolve(`could not start npx: ${error.message}`));
    dev.on("close", (code, signal) => resolve(`wrangler dev exited (${code ?? signal})`));
  });
  const ready = new Promise((resolve) => {
    const onData = (/** @type {string} */ chunk) => {
      log += chunk;
      const url = /Ready on (http:\/\/\S+)/.exec(log)?.[1];
      if (url !== undefined) resolve(url);
    };
    dev.stdout.setEncoding("utf8").on("data", onData);
    dev.stderr.setEncoding("utf8").on("data", onData);
  });
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const timedOut = new Promise((resolve) => {
    timer = setTimeout(
      () => resolve(`wrangler dev was not ready after ${WRANGLER_READY_TIMEOUT_MS} ms`),
      WRANGLER_READY_TIMEOUT_MS,
    );
  });
  const command = `npx ${args.join(" ")}`;
  try {
    const started = await Promise.race([ready.then((url) => ({ url })), exited, timedOut]);
    if (typeof started === "string") return { ok: false, output: "", detail: `${command}: ${started}\n${log.trim()}` };
    const response = await fetch(new URL(example.attributes["path"] ?? "/", started.url), {
      signal: AbortSignal.timeout(WRANGLER_READY_TIMEOUT_MS),
    });
    const output = await response.text();
    const version = /wrangler (\d+\.\d+\.\d+)/.exec(log)?.[1] ?? "?";
    return {
      ok: response.ok,
      output,
      detail: response.ok ? "" : `HTTP ${response.status}\n${log.trim()}`,
      log: `${command} (wrangler ${version})\n${log}`,
    };
  } finally {
    clearTimeout(timer);
    await stopProcessGroup(dev, exited);
  }
}

/**
 * Stop a process started with `detached` and everything it started: SIGTERM to its group, SIGKILL if it is still
 * there after ten seconds.
 * @param {import("node:child_process").ChildProcess} child
 * @param {Promise<unknown>} exited
 */
async function stopProcessGroup(child, exited) {
  const signal = (/** @type {NodeJS.Signals} */ name) => {
    try {
      if (child.pid !== undefined) process.kill(process.platform === "win32" ? child.pid : -child.pid, name);
    } catch {
      // already gone
    }
  };
  if (child.exitCode !== null || child.signalCode !== null) return;
  signal("SIGTERM");
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const killed = new Promise((resolve) => {
    timer = setTimeout(() => {
      signal("SIGKILL");
      resolve(undefined);
    }, 10_000);
  });
  await Promise.race([exited, killed]);
  clearTimeout(timer);
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
    case "wrangler":
      return runWranglerExample(options);
    default:
      return Promise.resolve({ ok: false, output: "", detail: `unknown runner "${options.example.runner}"` });
  }
}
