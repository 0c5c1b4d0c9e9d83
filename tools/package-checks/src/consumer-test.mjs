#!/usr/bin/env node
// @ts-check
// The consumer test: release every published package to a local registry and use it as a new user would.
//
//   pnpm consumer-test [--only core-runs,progress] [--keep]
//
// 1. Copy the workspace (tracked and untracked files, not ignored ones) into a scratch folder and install it there
//    from pnpm's store. Versions are bumped in that copy only; the repository stays at 0.0.0.
// 2. Start Verdaccio (verdaccio.yaml) on 127.0.0.1 and a free port, with its storage in the scratch folder. It takes
//    publishes without a login, as a private registry may: the release has no credentials for it.
// 3. Run the release flow in the copy against it, twice, as docs/releasing.md tells a user to when a publish fails:
//    first while the registry refuses every upload (`pnpm release --registry <local> --no-git-tag` must fail at
//    publish, with the versions bumped and the changesets applied), then, the registry taking uploads again, the
//    same command again (it must publish every package without bumping any version again).
// 4. For each package: check the published tarball (LICENSE, README, every `exports` target, no .tsbuildinfo, README
//    links to packed files), `publint run <tarball> --strict`, `attw <tarball> --profile esm-only`; then create a
//    fresh project in a temporary folder outside the workspace (`@agent-tools:registry` → the local registry,
//    everything else from the public npm registry, Node 22 as `node`), run the README's `npm i …` lines verbatim,
//    add tsx and TypeScript, write the README's first example verbatim and run it (`npx tsx example.<ext>`, or as
//    the runner it names says: `wrangler dev` on the README's wrangler.jsonc), compare its output with the README's
//    ```text block, and type-check it (strict, `skipLibCheck: false`). Then, in another fresh project, run the same
//    install lines on Node 20 (npm 11) under a time limit: they must end, as the README says, with npm's
//    `EBADENGINE` warnings, `ai` 7 installed, and wrangler (where they install it) refusing to start.
// 5. Print a pass/fail line per package and check, write test-results/consumer-test.json (the counts .ci/run adds
//    to its closing line), stop Verdaccio, and exit 1 on any failure.
//
// Logs of every step are kept in test-results/consumer-test/.

import { spawnSync } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { pendingChangesets } from "../../../scripts/release.mjs";
import { ownErrors } from "./declarations.mjs";
import { normalizeOutput, run, runExample, wranglerEnvironment } from "./example-runners.mjs";
import { linkProblems } from "./links.mjs";
import { readReadmeConvention } from "./readme.mjs";
import { publishedPackages, REPOSITORY_ROOT } from "./workspace.mjs";

const TOOL_ROOT = path.join(REPOSITORY_ROOT, "tools", "package-checks");
const RESULTS_DIRECTORY = path.join(REPOSITORY_ROOT, "test-results");
const LOG_DIRECTORY = path.join(RESULTS_DIRECTORY, "consumer-test");
const REPORT_FILE = path.join(RESULTS_DIRECTORY, "consumer-test.json");
/** The checks made for each package, in the order of the summary's columns. */
export const PACKAGE_CHECKS = ["tarball", "publint", "attw", "install", "example", "types", "node20"];
/** How long the README's install lines may take on Node 20 (a few seconds to twenty here; a resolver loop never ends). */
const NODE20_INSTALL_TIMEOUT_MS = 180_000;
const CONCURRENCY = 3;
const USAGE = "usage: pnpm consumer-test [--only <folder>,…] [--keep]";

/**
 * @typedef {{ name: string, check: string, ok: boolean, detail: string, ms: number }} CheckResult
 */

/** @param {string} message */
const say = (message) => process.stdout.write(`${message}\n`);

/** npm settings a consumer keeps from the environment (how to reach the public registry); the rest is pnpm's. */
const KEPT_NPM_SETTINGS = ["registry", "proxy", "https_proxy", "noproxy", "cafile", "strict_ssl"];

/**
 * The environment of a consumer's npm: this process's, without the `npm_config_*`, `npm_package_*` and `pnpm_*`
 * variables that `pnpm <script>` sets (a user's shell has none of them), but with their proxy and registry settings,
 * and without the workspace's NODE_PATH. Its PATH is a user's with Node 22 as `node`: the folder of the Node that
 * runs this test first (the workspace's Node 22 under `pnpm consumer-test`, docs/decisions/2026-12-03-node-22.md), so
 * that npm, npx and what they start (tsx, wrangler) run on it, and no `node_modules` folder (`pnpm <script>` puts the
 * workspace's `.bin` folders there, which would lend the consumer our tools).
 */
export function consumerEnvironment(env = process.env, nodeDirectory = path.dirname(process.execPath)) {
  /** @type {NodeJS.ProcessEnv} */
  const clean = {};
  for (const [key, value] of Object.entries(env)) {
    const lower = key.toLowerCase();
    const setting = lower.startsWith("npm_config_") ? lower.slice("npm_config_".length) : null;
    if (setting !== null && !KEPT_NPM_SETTINGS.includes(setting.replaceAll("-", "_"))) continue;
    if (lower.startsWith("npm_package_") || lower.startsWith("npm_lifecycle_") || lower.startsWith("pnpm_")) continue;
    if (lower === "npm_execpath" || lower === "npm_node_execpath" || lower === "npm_command") continue;
    // Set by the node_modules/.bin/node shim: it would let the consumer's require() find the workspace's packages.
    if (key === "NODE_PATH") continue;
    if (key.toUpperCase() === "PATH" && value !== undefined) {
      const entries = value
        .split(path.delimiter)
        .filter((entry) => entry !== "" && !/(^|[\\/])node_modules([\\/]|$)/.test(entry));
      clean[key] = [nodeDirectory, ...entries.filter((entry) => entry !== nodeDirectory)].join(path.delimiter);
      continue;
    }
    clean[key] = value;
  }
  return clean;
}

/**
 * Run a step, log its output to a file; reject with the log's tail when it fails.
 * @param {string} logName
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd: string, env?: NodeJS.ProcessEnv, timeoutMs?: number }} options
 */
async function step(logName, command, args, options) {
  const result = await run(command, args, options);
  const log = `$ ${[command, ...args].join(" ")}\n(in ${options.cwd})\n\n${result.stdout}\n${result.stderr}`;
  await writeFile(path.join(LOG_DIRECTORY, `${logName}.log`), log);
  if (result.code !== 0) {
    const tail = `${result.stdout}\n${result.stderr}`.trim().split("\n").slice(-15).join("\n");
    throw new Error(
      `${[command, ...args].join(" ")} failed (${result.error?.message ?? `exit ${result.code ?? result.signal}`}); ` +
        `log: test-results/consumer-test/${logName}.log\n${tail}`,
    );
  }
  return result;
}

/** The pnpm that runs this script (`npm_execpath` under `pnpm <script>`), else `pnpm` on PATH. */
function pnpmCommand() {
  const execPath = process.env["npm_execpath"];
  if (execPath && /pnpm/.test(path.basename(execPath))) {
    return /\.c?js$/.test(execPath)
      ? { command: process.execPath, prefix: [execPath] }
      : { command: execPath, prefix: [] };
  }
  return { command: "pnpm", prefix: [] };
}

/**
 * The files of the working tree that git would commit (tracked, plus untracked and not ignored), relative, with "/".
 * @param {string} root
 */
function workspaceFiles(root) {
  const listed = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr || listed.error?.message}`);
  return listed.stdout.split("\0").filter(Boolean);
}

/**
 * @param {string} from
 * @param {string} to
 */
async function copyWorkspace(from, to) {
  let copied = 0;
  for (const file of workspaceFiles(from)) {
    const source = path.join(from, file);
    const target = path.join(to, file);
    await mkdir(path.dirname(target), { recursive: true });
    try {
      await copyFile(source, target);
      copied += 1;
    } catch (error) {
      if (/** @type {NodeJS.ErrnoException} */ (error).code !== "ENOENT") throw error; // deleted, not yet committed
    }
  }
  return copied;
}

/**
 * Start Verdaccio in this process on 127.0.0.1 and `port` (0: a free one), its config and storage in `directory`;
 * `maxBodySize` replaces the config's limit on a request's body (a registry that refuses every upload: "1kb").
 * @param {string} directory
 * @param {{ port?: number, maxBodySize?: string }} [options]
 */
async function startRegistry(directory, { port = 0, maxBodySize } = {}) {
  const configFile = path.join(directory, "verdaccio.yaml");
  const config = await readFile(path.join(TOOL_ROOT, "verdaccio.yaml"), "utf8");
  await writeFile(
    configFile,
    maxBodySize === undefined ? config : config.replace(/^max_body_size: .*$/m, `max_body_size: ${maxBodySize}`),
  );
  const { runServer } = await import("verdaccio");
  const server = /** @type {import("node:http").Server} */ (await runServer(configFile));
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(undefined));
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the registry has no TCP address");
  const stop = () =>
    new Promise((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve(undefined));
    });
  return { url: `http://127.0.0.1:${address.port}/`, port: address.port, stop };
}

/**
 * The versions of the copy's published packages, by name.
 * @param {string} root
 */
async function releasedVersions(root) {
  return new Map(
    (await publishedPackages(root)).map((candidate) => [candidate.name, candidate.manifest.version ?? ""]),
  );
}

/**
 * Every string target of an `exports` map (all conditions, all subpaths).
 * @param {unknown} exportsField
 * @returns {string[]}
 */
export function exportTargets(exportsField) {
  if (typeof exportsField === "string") return [exportsField];
  if (exportsField === null || typeof exportsField !== "object") return [];
  return Object.values(exportsField).flatMap((value) => exportTargets(value));
}

/**
 * Check a published tarball's contents; returns problems.
 * @param {{ files: string[], manifest: Record<string, unknown>, readme: string, readmeFile: string, packageDirectory: string }} options
 */
export async function tarballProblems({ files, manifest, readme, readmeFile, packageDirectory }) {
  const packed = new Set(files.map((file) => file.replace(/^package\//, "")));
  /** @type {string[]} */
  const problems = [];
  for (const required of ["package.json", "README.md", "LICENSE"]) {
    if (!packed.has(required)) problems.push(`${required} is not in the tarball`);
  }
  for (const file of packed) {
    if (file.endsWith(".tsbuildinfo")) problems.push(`${file}: TypeScript build info in the tarball`);
    // Tests and their helpers (`x.test.ts`, `x.test-utils.ts`, and what they compile to) stay in the repository.
    if (/\.test[.-]/.test(path.posix.basename(file))) problems.push(`${file}: test code in the tarball`);
  }
  for (const target of exportTargets(manifest["exports"])) {
    const file = target.replace(/^\.\//, "");
    if (!file.includes("*") && !packed.has(file)) problems.push(`exports target ${target} is not in the tarball`);
  }
  problems.push(
    ...(await linkProblems(readme, {
      file: readmeFile,
      boundary: packageDirectory,
      isPacked: (relativePath) =>
        packed.has(relativePath) || [...packed].some((file) => file.startsWith(`${relativePath}/`)),
    })),
  );
  return problems;
}

/**
 * @template T, R
 * @param {T[]} items
 * @param {number} limit
 * @param {(item: T) => Promise<R>} worker
 * @returns {Promise<R[]>}
 */
async function mapWithLimit(items, limit, worker) {
  /** @type {R[]} */
  const results = new Array(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await worker(/** @type {T} */ (items[index]));
    }
  });
  await Promise.all(lanes);
  return results;
}

/**
 * @param {unknown} error
 */
const message = (error) => (error instanceof Error ? error.message : String(error));

/**
 * The checks of one published package.
 * @param {object} options
 * @param {import("./workspace.mjs").WorkspacePackage} options.workspacePackage the package in the scratch copy
 * @param {string} options.registry
 * @param {string} options.scratch
 * @param {{ tsx: string, typescript: string, publint: string, attw: string }} options.tools
 * @returns {Promise<CheckResult[]>}
 */
async function checkPackage({ workspacePackage, registry, scratch, tools }) {
  const { name, folderName } = workspacePackage;
  /** @type {CheckResult[]} */
  const results = [];
  /**
   * @param {string} check
   * @param {() => Promise<string | void>} body returns a detail to show on success, throws on failure
   */
  const record = async (check, body) => {
    const started = performance.now();
    try {
      const detail = (await body()) ?? "";
      results.push({ name, check, ok: true, detail, ms: performance.now() - started });
      return true;
    } catch (error) {
      results.push({ name, check, ok: false, detail: message(error), ms: performance.now() - started });
      return false;
    }
  };
  const skip = (/** @type {string[]} */ checks, /** @type {string} */ why) => {
    for (const check of checks) results.push({ name, check, ok: false, detail: `not run: ${why}`, ms: 0 });
  };

  const readmeFile = path.join(workspacePackage.directory, "README.md");
  const readme = await readFile(readmeFile, "utf8");
  const convention = readReadmeConvention(readme);
  const work = path.join(scratch, "checks", folderName);
  await mkdir(work, { recursive: true });

  // The published tarball, from the registry.
  const version = workspacePackage.manifest.version ?? "";
  const tarball = path.join(work, `${folderName}-${version}.tgz`);
  const fetched = await record("tarball", async () => {
    const packument = /** @type {{ versions?: Record<string, { dist?: { tarball?: unknown } }> }} */ (
      await (await fetch(new URL(name.replace("/", "%2f"), registry))).json()
    );
    const tarballUrl = packument?.versions?.[version]?.dist?.tarball;
    if (typeof tarballUrl !== "string") throw new Error(`${name}@${version} is not on the registry`);
    const response = await fetch(tarballUrl);
    if (!response.ok) throw new Error(`GET ${tarballUrl}: HTTP ${response.status}`);
    await writeFile(tarball, Buffer.from(await response.arrayBuffer()));
    const listing = await run("tar", ["tzf", tarball], { cwd: work });
    if (listing.code !== 0) throw new Error(`tar tzf failed: ${listing.stderr}`);
    const files = listing.stdout.split("\n").filter(Boolean);
    const problems = await tarballProblems({
      files,
      manifest: workspacePackage.manifest,
      readme,
      readmeFile,
      packageDirectory: workspacePackage.directory,
    });
    if (problems.length > 0) throw new Error(problems.join("\n"));
    return `${files.length} files`;
  });
  if (fetched) {
    await record("publint", async () => {
      await step(`${folderName}-publint`, process.execPath, [tools.publint, "run", tarball, "--strict"], { cwd: work });
    });
    await record("attw", async () => {
      await step(
        `${folderName}-attw`,
        process.execPath,
        [tools.attw, tarball, "--profile", "esm-only", "--no-definitely-typed", "--format", "table-flipped"],
        { cwd: work, env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" } },
      );
    });
  } else {
    skip(["publint", "attw"], "no tarball");
  }

  // A fresh consumer project outside the workspace.
  const consumer = await mkdtemp(path.join(tmpdir(), `agent-tools-consumer-${folderName}-`));
  try {
    await writeFile(
      path.join(consumer, "package.json"),
      `${JSON.stringify({ name: `consumer-of-${folderName}`, version: "1.0.0", private: true, type: "module" }, null, 2)}\n`,
    );
    await writeFile(
      path.join(consumer, ".npmrc"),
      [`@agent-tools:registry=${registry}`, "audit=false", "fund=false", "update-notifier=false", ""].join("\n"),
    );
    const installLine = convention.installLine;
    const env = consumerEnvironment();
    const installed = await record("install", async () => {
      if (installLine === null) throw new Error(convention.problems.join("; "));
      // The README's line, verbatim, through a shell as a user would type it.
      await step(`${folderName}-install`, "sh", ["-c", installLine], { cwd: consumer, env, timeoutMs: 300_000 });
      // tsx to run the example, TypeScript to check it; the type packages it needs come from the README's lines.
      const devTools = [`tsx@${tools.tsx}`, `typescript@${tools.typescript}`];
      await step(`${folderName}-install-dev`, "npm", ["i", "-D", ...devTools], {
        cwd: consumer,
        env,
        timeoutMs: 300_000,
      });
      return installLine;
    });
    const example = convention.example;
    const typeChecked = example !== null && /^tsx?$/.test(example.language);
    if (!installed) skip(typeChecked ? ["example", "types"] : ["example"], "install failed");
    else {
      const ran = await record("example", async () => {
        if (example === null || example.expectedOutput === null) throw new Error(convention.problems.join("; "));
        const result = await runExample({ directory: consumer, example, env });
        await writeFile(
          path.join(LOG_DIRECTORY, `${folderName}-example.log`),
          `${result.output}\n${result.detail}\n${result.log ?? ""}`,
        );
        if (!result.ok) throw new Error(`${example.fileName} (${example.runner}) failed: ${result.detail}`);
        const actual = normalizeOutput(result.output);
        const expected = normalizeOutput(example.expectedOutput);
        if (actual !== expected) {
          throw new Error(
            `${example.fileName} printed something else.\n--- expected\n${expected}\n--- printed\n${actual}`,
          );
        }
        return `${example.fileName} (${example.runner}), ${expected.split("\n").length} lines as in the README`;
      });
      if (typeChecked && example.runner === "wrangler" && !ran) skip(["types"], "the example did not run");
      else if (typeChecked) {
        await record("types", async () =>
          example.runner === "wrangler"
            ? checkWorkerTypes({ consumer, env, folderName })
            : checkNodeTypes({ consumer, env, folderName }),
        );
      }
    }
  } finally {
    await rm(consumer, { recursive: true, force: true });
  }
  await record("node20", () => checkNode20Install({ installLine: convention.installLine, folderName, registry }));
  return results;
}

/**
 * The example against the published types, as a strict TypeScript project compiles it (`skipLibCheck: false`), with
 * the type packages the README's install lines add.
 * @param {{ consumer: string, env: NodeJS.ProcessEnv, folderName: string }} options
 */
async function checkNodeTypes({ consumer, env, folderName }) {
  await writeFile(path.join(consumer, "tsconfig.json"), `${JSON.stringify(CONSUMER_TSCONFIG, null, 2)}\n`);
  await step(`${folderName}-types`, "npx", ["tsc", "-p", "."], { cwd: consumer, env, timeoutMs: 120_000 });
  return "strict, skipLibCheck: false";
}

/**
 * A Worker example's types, as the README's "Run the example" step 4 says: `wrangler types`, then `tsc` with the
 * README's tsconfig (`skipLibCheck: true`: the AI SDK's declarations use DOM and Node types a Worker's runtime types
 * lack or redeclare), which must pass; and with `skipLibCheck: false`, no error may be in our packages' declarations
 * (the third parties' are the README's to explain).
 * @param {{ consumer: string, env: NodeJS.ProcessEnv, folderName: string }} options
 */
async function checkWorkerTypes({ consumer, env, folderName }) {
  await step(`${folderName}-wrangler-types`, "npx", ["wrangler", "types"], {
    cwd: consumer,
    env: wranglerEnvironment(consumer, env),
    timeoutMs: 120_000,
  });
  const tsconfig = path.join(consumer, "tsconfig.json");
  await writeFile(tsconfig, `${JSON.stringify(WORKER_TSCONFIG, null, 2)}\n`);
  await step(`${folderName}-types`, "npx", ["tsc", "-p", "."], { cwd: consumer, env, timeoutMs: 120_000 });
  const strict = { ...WORKER_TSCONFIG, compilerOptions: { ...WORKER_TSCONFIG.compilerOptions, skipLibCheck: false } };
  await writeFile(tsconfig, `${JSON.stringify(strict, null, 2)}\n`);
  const checked = await run("npx", ["tsc", "-p", "."], { cwd: consumer, env, timeoutMs: 120_000 });
  const output = `${checked.stdout}${checked.stderr}`;
  await writeFile(path.join(LOG_DIRECTORY, `${folderName}-types-no-skiplibcheck.log`), output);
  const ours = ownErrors(output, consumer);
  if (ours.length > 0) throw new Error(`with skipLibCheck: false, errors in our declarations:\n${ours.join("\n")}`);
  return "wrangler types; as the README's tsconfig says, and none of ours with skipLibCheck: false";
}

/** @type {Promise<string> | undefined} */
let node20Directory;

/**
 * The folder of a Node 20 to run npm on: the system's `node` (the first on a user's PATH) when it is Node 20, else
 * one from the npm registry (`npx -p node@20`). Found once.
 */
function findNode20() {
  node20Directory ??= (async () => {
    const probe = "process.stdout.write(process.versions.node + ' ' + process.execPath)";
    const userEnv = consumerEnvironment(process.env, "/nonexistent");
    const system = await run("node", ["-e", probe], { cwd: TOOL_ROOT, env: userEnv, timeoutMs: 30_000 });
    const [version = "", execPath = ""] = system.stdout.split(" ");
    if (system.code === 0 && version.startsWith("20.")) return path.dirname(execPath);
    const fetched = await run("npx", ["-y", "-p", "node@20", "--", "node", "-e", probe], {
      cwd: TOOL_ROOT,
      env: userEnv,
      timeoutMs: 300_000,
    });
    const [fetchedVersion = "", fetchedPath = ""] = fetched.stdout.split(" ");
    if (fetched.code !== 0 || !fetchedVersion.startsWith("20.")) {
      throw new Error(`no Node 20: the system's node is ${version || "missing"}, and npx -p node@20 failed`);
    }
    return path.dirname(fetchedPath);
  })();
  return node20Directory;
}

/**
 * The README's install lines on Node 20 with npm 11, in a fresh project, under a time limit: what the README says
 * happens there. They end (npm's resolver once looped without end on the ag-ui line), with npm's `EBADENGINE`
 * warning for every `@agent-tools/*` package they name, `ai` 7 installed (not the `ai` 6 npm picks on Node 20 for a
 * bare `ai`), and wrangler, where they install it, refusing to start for want of Node 22.12.
 * @param {{ installLine: string | null, folderName: string, registry: string }} options
 */
async function checkNode20Install({ installLine, folderName, registry }) {
  if (installLine === null) throw new Error("the README has no install line");
  const project = await mkdtemp(path.join(tmpdir(), `agent-tools-node20-${folderName}-`));
  try {
    await writeFile(
      path.join(project, "package.json"),
      `${JSON.stringify({ name: `node20-consumer-of-${folderName}`, version: "1.0.0", private: true, type: "module" }, null, 2)}\n`,
    );
    await writeFile(
      path.join(project, ".npmrc"),
      [`@agent-tools:registry=${registry}`, "audit=false", "fund=false", "update-notifier=false", ""].join("\n"),
    );
    const env = consumerEnvironment(process.env, await findNode20());
    const started = performance.now();
    const installed = await run("sh", ["-c", installLine], { cwd: project, env, timeoutMs: NODE20_INSTALL_TIMEOUT_MS });
    const seconds = (performance.now() - started) / 1000;
    const output = `${installed.stdout}\n${installed.stderr}`;
    const versions = spawnSync("sh", ["-c", "node --version && npm --version"], { env, encoding: "utf8" }).stdout;
    await writeFile(
      path.join(LOG_DIRECTORY, `${folderName}-node20.log`),
      `$ ${installLine}\n(node ${versions.trim().replace("\n", ", npm ")}, in ${project}, ${seconds.toFixed(1)} s)\n\n${output}`,
    );
    if (installed.code !== 0) {
      const why = installed.signal === "SIGKILL" ? `did not end in ${NODE20_INSTALL_TIMEOUT_MS / 1000} s` : "failed";
      throw new Error(`on Node 20 \`${installLine}\` ${why}; log: test-results/consumer-test/${folderName}-node20.log`);
    }
    const problems = [];
    for (const name of installLine.match(/@agent-tools\/[a-z0-9-]+/g) ?? []) {
      if (!new RegExp(`EBADENGINE[\\s\\S]*?package: '${name}@`).test(output)) {
        problems.push(`no EBADENGINE warning for ${name}`);
      }
    }
    const ai = await readFile(path.join(project, "node_modules", "ai", "package.json"), "utf8").then(
      (text) => /** @type {{ version: string }} */ (JSON.parse(text)).version,
      () => "none",
    );
    if (!ai.startsWith("7.")) problems.push(`ai ${ai} installed, not ai 7`);
    if (/(^|\s)wrangler@/.test(installLine)) {
      const wrangler = await run("npx", ["wrangler", "--version"], { cwd: project, env, timeoutMs: 120_000 });
      const said = `${wrangler.stdout}${wrangler.stderr}`;
      if (wrangler.code === 0 || !/requires at least Node\.js v22/.test(said)) {
        problems.push(`wrangler did not refuse to start on Node 20 saying it needs Node 22: ${said.trim()}`);
      }
    }
    if (problems.length > 0) throw new Error(`on Node 20: ${problems.join("; ")}`);
    return `ended in ${seconds.toFixed(0)} s with EBADENGINE warnings, ai ${ai}`;
  } finally {
    await rm(project, { recursive: true, force: true });
  }
}

/**
 * The tsconfig of a Node example's type check: strict, `skipLibCheck: false` (TypeScript's default), Node's ESM
 * resolution, Node's types (the READMEs say to add `"types": ["node"]`), the example file only.
 */
const CONSUMER_TSCONFIG = {
  compilerOptions: {
    target: "es2022",
    module: "nodenext",
    moduleResolution: "nodenext",
    lib: ["es2023", "dom"],
    jsx: "react-jsx",
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    types: ["node"],
  },
  include: ["example.ts", "example.tsx"],
};

/** A Worker's tsconfig, as the cloudflare README's "Run the example" step 4 shows it. */
const WORKER_TSCONFIG = {
  compilerOptions: {
    target: "es2022",
    module: "es2022",
    moduleResolution: "bundler",
    lib: ["es2023"],
    types: [],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
  },
  include: ["src", "worker-configuration.d.ts"],
};

/**
 * The bin files of the tools this test runs, and the versions of the tools a consumer gets.
 */
async function toolPaths() {
  const manifest = JSON.parse(await readFile(path.join(TOOL_ROOT, "package.json"), "utf8"));
  const bin = async (/** @type {string} */ packageName, /** @type {string} */ binName) => {
    const packageJsonPath = path.join(TOOL_ROOT, "node_modules", packageName, "package.json");
    const packageJson = JSON.parse(await readFile(packageJsonPath, "utf8"));
    const relative = typeof packageJson.bin === "string" ? packageJson.bin : packageJson.bin?.[binName];
    if (typeof relative !== "string") throw new Error(`${packageName} has no bin ${binName}`);
    return path.join(path.dirname(packageJsonPath), relative);
  };
  const pin = (/** @type {string} */ name) => {
    const version = manifest.devDependencies?.[name];
    if (typeof version !== "string") throw new Error(`tools/package-checks/package.json pins no ${name}`);
    return version;
  };
  return {
    tsx: pin("tsx"),
    typescript: pin("typescript"),
    publint: await bin("publint", "publint"),
    attw: await bin("@arethetypeswrong/cli", "attw"),
  };
}

/**
 * @param {CheckResult[]} results
 * @param {{ registry: string, seconds: number }} summary
 */
function printSummary(results, { registry, seconds }) {
  const names = [...new Set(results.filter((result) => result.check !== "release").map((result) => result.name))];
  const width = Math.max(28, ...names.map((name) => name.length + 2));
  say("");
  say(`${"package".padEnd(width)}${PACKAGE_CHECKS.map((check) => check.padEnd(9)).join("")}time`);
  for (const name of names) {
    const own = results.filter((result) => result.name === name);
    const cells = PACKAGE_CHECKS.map((check) => {
      const found = own.find((result) => result.check === check);
      return (found === undefined ? "—" : found.ok ? "pass" : "FAIL").padEnd(9);
    });
    const ms = own.reduce((sum, result) => sum + result.ms, 0);
    say(`${name.padEnd(width)}${cells.join("")}${(ms / 1000).toFixed(1)}s`);
  }
  for (const failure of results.filter((result) => !result.ok)) {
    say(`\n✗ ${failure.name} ${failure.check}: ${failure.detail}`);
  }
  const passed = results.filter((result) => result.ok).length;
  const failed = results.length - passed;
  say(`\nconsumer test (registry ${registry}): ${passed} passed, ${failed} failed in ${seconds.toFixed(0)}s`);
}

async function main() {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      only: { type: "string" },
      keep: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    say(USAGE);
    return;
  }
  const started = performance.now();
  await rm(LOG_DIRECTORY, { recursive: true, force: true });
  await mkdir(LOG_DIRECTORY, { recursive: true });
  await rm(REPORT_FILE, { force: true });
  const only = values.only?.split(",").filter(Boolean);
  const selected = (await publishedPackages()).filter(
    (candidate) => only === undefined || only.includes(candidate.folderName),
  );
  if (selected.length === 0) throw new Error(`no published package matches --only ${values.only}`);
  say(`consumer test: ${selected.map((candidate) => candidate.name).join(", ")}`);
  say(`node ${process.version}, npm ${spawnSync("npm", ["--version"], { encoding: "utf8" }).stdout.trim()}`);

  const scratch = await mkdtemp(path.join(tmpdir(), "agent-tools-release-"));
  const copy = path.join(scratch, "repo");
  /** @type {CheckResult[]} */
  const results = [];
  /** @type {(() => Promise<unknown>) | undefined} */
  let stopRegistry;
  let registry = "(not started)";
  let keep = values.keep;
  try {
    const tools = await toolPaths();
    say(`copying the workspace to ${copy}`);
    const copied = await copyWorkspace(REPOSITORY_ROOT, copy);
    const pnpm = pnpmCommand();
    const releaseStarted = performance.now();
    let released = false;
    try {
      say(`installing the copy (${copied} files) from pnpm's store`);
      await step("install", pnpm.command, [...pnpm.prefix, "install", "--frozen-lockfile", "--prefer-offline"], {
        cwd: copy,
        timeoutMs: 600_000,
      });
      // First a registry that refuses every upload (its body limit too small), as a registry may refuse a publish.
      const refusing = await startRegistry(scratch, { maxBodySize: "1kb" });
      stopRegistry = refusing.stop;
      registry = refusing.url;
      say(`local registry at ${registry} (it takes publishes without a login; the copy has no credentials for it)`);
      const release = [...pnpm.prefix, "release", "--registry", registry, "--no-git-tag"];
      say("releasing into it while it refuses uploads: pnpm release must fail at publish");
      const failed = await run(pnpm.command, release, { cwd: copy, timeoutMs: 600_000 });
      await writeFile(
        path.join(LOG_DIRECTORY, "release-1.log"),
        `$ ${[pnpm.command, ...release].join(" ")}\n(in ${copy}, uploads refused)\n\n${failed.stdout}\n${failed.stderr}`,
      );
      const bumped = await releasedVersions(copy);
      const firstRunProblems = [];
      if (failed.code === 0) firstRunProblems.push("it succeeded");
      if (!/release: "publish" failed/.test(failed.stderr)) firstRunProblems.push("it did not fail at publish");
      // Refused by the registry (413, the upload too large), not by npm for want of a login (ENEEDAUTH).
      const said = `${failed.stdout}\n${failed.stderr}`;
      if (/ENEEDAUTH/.test(said)) firstRunProblems.push("npm refused to publish without a login (ENEEDAUTH)");
      if (!/\b413\b/.test(said)) firstRunProblems.push("the registry's refusal (413) is not in its output");
      if ([...bumped.values()].some((version) => version === "0.0.0")) firstRunProblems.push("no version was bumped");
      if (pendingChangesets(copy).length > 0) firstRunProblems.push("changesets are still pending");
      if (firstRunProblems.length > 0) {
        throw new Error(`the release refused at publish: ${firstRunProblems.join("; ")}; log: release-1.log`);
      }
      // The registry takes uploads again (same address, same storage): the same command must finish the release.
      await refusing.stop();
      const server = await startRegistry(scratch, { port: refusing.port });
      stopRegistry = server.stop;
      say("the registry takes uploads: the same pnpm release again must publish what the first one bumped");
      const finished = await step("release-2", pnpm.command, release, {
        cwd: copy,
        timeoutMs: 600_000,
      });
      const again = await releasedVersions(copy);
      const changed = [...again].filter(([name, version]) => bumped.get(name) !== version);
      if (changed.length > 0) {
        throw new Error(
          `the second release bumped versions again: ${changed.map(([name, v]) => `${name}@${v}`).join(", ")}`,
        );
      }
      if (!/version: skipped/.test(finished.stdout))
        throw new Error("the second release did not skip the version step");
      released = true;
      results.push({
        name: "release",
        check: "release",
        ok: true,
        detail: "failed at publish with the registry down, then the same command published it all, bumped once",
        ms: performance.now() - releaseStarted,
      });
    } catch (error) {
      results.push({
        name: "release",
        check: "release",
        ok: false,
        detail: message(error),
        ms: performance.now() - releaseStarted,
      });
    }

    if (released) {
      // The packages as released: the copy's manifests carry the versions `changeset version` gave them.
      const releasedPackages = (await publishedPackages(copy)).filter((candidate) =>
        selected.some((wanted) => wanted.name === candidate.name),
      );
      say(
        `checking ${releasedPackages.map((candidate) => `${candidate.name}@${candidate.manifest.version}`).join(", ")}`,
      );
      const perPackage = await mapWithLimit(releasedPackages, CONCURRENCY, (workspacePackage) =>
        checkPackage({ workspacePackage, registry, scratch, tools }),
      );
      results.push(...perPackage.flat());
    } else {
      for (const candidate of selected) {
        for (const check of PACKAGE_CHECKS) {
          results.push({ name: candidate.name, check, ok: false, detail: "not run: the release failed", ms: 0 });
        }
      }
    }
  } finally {
    await stopRegistry?.();
    const passed = results.filter((result) => result.ok).length;
    const failed = results.length - passed + (results.length === 0 ? 1 : 0);
    await writeFile(REPORT_FILE, `${JSON.stringify({ passed, failed, registry, checks: results }, null, 2)}\n`);
    printSummary(results, { registry, seconds: (performance.now() - started) / 1000 });
    if (failed > 0) keep = true;
    if (keep) say(`scratch folder kept: ${scratch}`);
    else await rm(scratch, { recursive: true, force: true });
    process.exitCode = failed > 0 ? 1 : 0;
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then(
    // Verdaccio leaves timers behind; the results are written, so end here.
    () => process.exit(),
    (error) => {
      process.stderr.write(
        `consumer test: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exit(1);
    },
  );
}
