#!/usr/bin/env node
// `pnpm release`: build every package, apply the pending changesets (versions and CHANGELOGs), publish what is not
// on the registry yet. docs/releasing.md says when to run it.
//
//   pnpm release [--registry <url>] [--tag <dist-tag>] [--no-git-tag]
//
// --registry publishes to another registry (the consumer test's local one); `npm_config_registry` in the environment
// does the same. --no-git-tag skips the git tags `changeset publish` creates (the consumer test's scratch copy is not
// a git checkout). The registry's credentials come from .npmrc, as for any `pnpm publish`.
//
// Re-runnable: a release that failed at publish (the network, the registry, a login) is finished by running the
// same command again. With no pending changeset the version step is skipped (the versions were bumped by the run
// that consumed them, and are never bumped twice), and `changeset publish` publishes every version the registry
// does not have yet. With no credentials for the registry at all, npm refuses to publish (ENEEDAUTH) even where the
// registry needs no login: the release then publishes with a placeholder token, which such a registry ignores and
// one that needs a login refuses (log in, and run the release again). The token goes into a temporary copy of the
// user's npm config (`npm_config_userconfig`), which pnpm and npm both read; pnpm does not pass a `//host/:_authToken`
// given in the environment on to npm.

import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const USAGE = "usage: pnpm release [--registry <url>] [--tag <dist-tag>] [--no-git-tag]";

function parseCli() {
  try {
    return parseArgs({
      args: process.argv.slice(2),
      options: {
        registry: { type: "string" },
        tag: { type: "string" },
        "no-git-tag": { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    }).values;
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`);
    process.exit(2);
  }
}

/** What the token stands in for when npm has no credentials for the registry (see the header). */
export const PLACEHOLDER_TOKEN = "agent-tools-release-without-login";

/**
 * The changesets waiting in `.changeset/` (every Markdown file but its README), by file name.
 * @param {string} root the repository
 */
export function pendingChangesets(root) {
  return readdirSync(path.join(root, ".changeset"))
    .filter((file) => file.endsWith(".md") && file !== "README.md")
    .sort();
}

/**
 * The npm setting that holds a token for `registry`: `//host[:port]/path/:_authToken`.
 * @param {string} registry
 */
export function authTokenKey(registry) {
  const { host, pathname } = new URL(registry);
  return `//${host}${pathname.endsWith("/") ? pathname : `${pathname}/`}:_authToken`;
}

/** A step that failed; the release stops. */
class StepFailed extends Error {}

/**
 * Run one step, inheriting the output; on failure, say so (and `hint`) and stop the release.
 * @param {string} title
 * @param {string} command
 * @param {string[]} args
 * @param {NodeJS.ProcessEnv} env
 * @param {string} [hint]
 */
function step(title, command, args, env, hint) {
  process.stdout.write(`\n▸ ${title}: ${[command, ...args].join(" ")}\n`);
  const result = spawnSync(command, args, { cwd: ROOT, env, stdio: "inherit" });
  if (result.status !== 0) {
    process.stderr.write(`release: "${title}" failed (${result.error?.message ?? `exit ${result.status}`})\n`);
    if (hint) process.stderr.write(`${hint}\n`);
    throw new StepFailed(title);
  }
}

/**
 * A temporary npm user config: the user's (`npm config get userconfig`, if it exists) and `lines` after it.
 * @param {NodeJS.ProcessEnv} env
 * @param {string[]} lines
 * @returns {{ file: string, remove: () => void }}
 */
function userConfigWith(env, lines) {
  const current = spawnSync("npm", ["config", "get", "userconfig"], { cwd: ROOT, env, encoding: "utf8" }).stdout.trim();
  let text = "";
  try {
    text = current ? readFileSync(current, "utf8") : "";
  } catch {
    // no user config yet
  }
  const directory = mkdtempSync(path.join(tmpdir(), "agent-tools-release-"));
  const file = path.join(directory, "npmrc");
  writeFileSync(file, `${text}${text === "" || text.endsWith("\n") ? "" : "\n"}${lines.join("\n")}\n`, { mode: 0o600 });
  return { file, remove: () => rmSync(directory, { recursive: true, force: true }) };
}

/**
 * The registry publishing goes to: `--registry`, else npm's configured one.
 * @param {NodeJS.ProcessEnv} env
 */
function targetRegistry(env) {
  if (env["npm_config_registry"]) return env["npm_config_registry"];
  const configured = spawnSync("npm", ["config", "get", "registry"], { cwd: ROOT, env, encoding: "utf8" });
  return configured.status === 0 ? configured.stdout.trim() : "https://registry.npmjs.org/";
}

/**
 * True when npm has no credentials at all for `registry` (`npm whoami` says ENEEDAUTH); a registry that cannot be
 * reached, or refuses the credentials npm has, is not that case.
 * @param {string} registry
 * @param {NodeJS.ProcessEnv} env
 */
function lacksCredentials(registry, env) {
  const whoami = spawnSync("npm", ["whoami", "--registry", registry], { cwd: ROOT, env, encoding: "utf8" });
  return whoami.status !== 0 && /ENEEDAUTH/.test(`${whoami.stdout}${whoami.stderr}`);
}

function main() {
  const options = parseCli();
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }

  const env = { ...process.env };
  if (options.registry !== undefined) {
    const registry = new URL(options.registry).href; // throws on a malformed URL
    env["npm_config_registry"] = registry;
    process.stdout.write(`registry: ${registry}\n`);
  }

  const publishArgs = ["publish"];
  if (options.tag !== undefined) publishArgs.push("--tag", options.tag);
  if (options["no-git-tag"]) publishArgs.push("--no-git-tag");

  step("build", "pnpm", ["run", "build"], env);
  const pending = pendingChangesets(ROOT);
  if (pending.length > 0) {
    step("version", "pnpm", ["exec", "changeset", "version"], env);
  } else {
    process.stdout.write(
      "\n▸ version: skipped, no pending changeset (a release that failed at publish is being finished: the " +
        "versions in the package.json files are published as they are, none is bumped again)\n",
    );
  }
  const registry = targetRegistry(env);
  /** @type {(() => void) | undefined} */
  let removeUserConfig;
  try {
    if (lacksCredentials(registry, env)) {
      const config = userConfigWith(env, [`${authTokenKey(registry)}=${PLACEHOLDER_TOKEN}`]);
      removeUserConfig = config.remove;
      env["npm_config_userconfig"] = config.file;
      process.stdout.write(
        `\nno credentials for ${registry}: publishing with a placeholder token (a registry that needs no login ` +
          "ignores it; one that needs a login refuses it: then log in and run pnpm release again)\n",
      );
    }
    step(
      "publish",
      "pnpm",
      ["exec", "changeset", ...publishArgs],
      env,
      "The versions are bumped and the changesets applied; nothing is lost. Fix the cause (the network, the " +
        "registry, a login: `npm login --registry <url>`) and run the same pnpm release command again: it " +
        "publishes every version the registry does not have yet, and bumps nothing twice.",
    );
  } finally {
    removeUserConfig?.();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    main();
  } catch (error) {
    if (!(error instanceof StepFailed)) throw error;
    process.exitCode = 1;
  }
}
