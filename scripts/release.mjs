#!/usr/bin/env node
// `pnpm release`: build every package, apply the pending changesets (versions and CHANGELOGs), publish what is not
// on the registry yet. docs/releasing.md says when to run it.
//
//   pnpm release [--registry <url>] [--tag <dist-tag>] [--no-git-tag]
//
// --registry publishes to another registry (the consumer test's local one); `npm_config_registry` in the environment
// does the same. --no-git-tag skips the git tags `changeset publish` creates (the consumer test's scratch copy is not
// a git checkout). The registry's credentials come from .npmrc, as for any `pnpm publish`.

import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
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

/**
 * Run one step, inheriting the output; stop the release on failure.
 * @param {string} title
 * @param {string} command
 * @param {string[]} args
 * @param {NodeJS.ProcessEnv} env
 */
function step(title, command, args, env) {
  process.stdout.write(`\n▸ ${title}: ${[command, ...args].join(" ")}\n`);
  const result = spawnSync(command, args, { cwd: ROOT, env, stdio: "inherit" });
  if (result.status !== 0) {
    process.stderr.write(`release: "${title}" failed (${result.error?.message ?? `exit ${result.status}`})\n`);
    process.exit(1);
  }
}

const options = parseCli();
if (options.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

const env = { ...process.env };
if (options.registry !== undefined) {
  const registry = new URL(options.registry).href; // throws on a malformed URL
  env.npm_config_registry = registry;
  process.stdout.write(`registry: ${registry}\n`);
}

const publishArgs = ["publish"];
if (options.tag !== undefined) publishArgs.push("--tag", options.tag);
if (options["no-git-tag"]) publishArgs.push("--no-git-tag");

step("build", "pnpm", ["run", "build"], env);
step("version", "pnpm", ["exec", "changeset", "version"], env);
step("publish", "pnpm", ["exec", "changeset", ...publishArgs], env);
