#!/usr/bin/env node
// @ts-check
// The published type declarations, checked as a consumer's TypeScript checks them: every `.d.ts` file a package
// ships (its `dist/`, tests aside), strict, with `skipLibCheck: false` (TypeScript's default), Node's ESM resolution
// and no source condition (so `@agent-tools/*` resolve to their published `dist/` types), in the package's own
// environment (its tsconfig's `lib`, `types` and `jsx`, or tsconfig.base.json's).
//
//   node tools/package-checks/src/declarations.mjs      (after `tsc -b`; `pnpm typecheck` runs it)
//
// Only errors in our own declaration files count: what `stripInternal` breaks (an `@internal` declaration removed
// while another declaration file still imports it), a public name the declarations lose. What a third party's
// declarations need (the AI SDK's: Node's and the DOM's types, `@types/json-schema`) depends on the consumer's
// project; the READMEs say what to add, and the consumer test checks their examples with exactly that.

import { spawnSync } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { publishedPackages, REPOSITORY_ROOT } from "./workspace.mjs";

/**
 * The compiler options a package's declarations are checked in: its tsconfig's, over tsconfig.base.json's.
 * @param {string} directory the package folder
 * @returns {Promise<{ lib?: string[], types?: string[], jsx?: string }>}
 */
async function packageEnvironment(directory) {
  const read = async (/** @type {string} */ file) => JSON.parse(await readFile(file, "utf8")).compilerOptions ?? {};
  const base = await read(path.join(REPOSITORY_ROOT, "tsconfig.base.json"));
  const own = await read(path.join(directory, "tsconfig.json"));
  return { ...base, ...own };
}

/**
 * The declaration files a package ships: `dist/**\/*.d.ts`, without tests and their helpers.
 * @param {string} directory the package folder
 */
export async function shippedDeclarations(directory) {
  const dist = path.join(directory, "dist");
  const entries = await readdir(dist, { recursive: true, withFileTypes: true }).catch((error) => {
    if (/** @type {NodeJS.ErrnoException} */ (error).code === "ENOENT") return [];
    throw error;
  });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith(".d.ts") && !/\.test[.-]/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}

/**
 * The `tsc` arguments that check `files` in a package's environment, as a consumer's strict project would.
 * @param {{ lib?: string[], types?: string[], jsx?: string }} compilerOptions the package's
 * @param {string[]} files
 */
export function declarationCheckArguments(compilerOptions, files) {
  return [
    "--ignoreConfig",
    "--noEmit",
    "--strict",
    "--skipLibCheck",
    "false",
    "--target",
    "es2022",
    "--module",
    "nodenext",
    "--moduleResolution",
    "nodenext",
    ...(compilerOptions.lib !== undefined ? ["--lib", compilerOptions.lib.join(",").toLowerCase()] : []),
    "--types",
    (compilerOptions.types ?? []).join(","),
    ...(compilerOptions.jsx !== undefined ? ["--jsx", compilerOptions.jsx] : []),
    ...files,
  ];
}

/**
 * The errors `tsc` reported in our own declaration files (any package's `dist/`, as the package sees it through its
 * `node_modules`), one per line with its continuation lines; errors in third-party declarations are left out.
 * @param {string} output what `tsc` printed (paths relative to `directory`)
 * @param {string} directory where `tsc` ran
 */
export function ownErrors(output, directory) {
  /** @type {string[]} */
  const errors = [];
  let keeping = false;
  for (const line of output.split("\n")) {
    const located = /^(.+?)\(\d+,\d+\): error /.exec(line);
    if (located?.[1] !== undefined) {
      const file = path.resolve(directory, located[1]).split(path.sep).join("/");
      keeping = /\/packages\/[^/]+\/dist\//.test(file) || /\/node_modules\/@agent-tools\//.test(file);
      if (keeping) errors.push(line);
    } else if (/^error /.test(line)) {
      keeping = true; // a global error (a missing `types` entry, a bad option): ours to fix
      errors.push(line);
    } else if (keeping && /^\s/.test(line)) {
      errors.push(line);
    } else {
      keeping = false;
    }
  }
  return errors;
}

async function main() {
  const tsc = path.join(REPOSITORY_ROOT, "node_modules", ".bin", "tsc");
  /** @type {Map<string, { environment: Awaited<ReturnType<typeof packageEnvironment>>, directory: string, names: string[], files: string[] }>} */
  const groups = new Map();
  let failed = 0;
  for (const workspacePackage of await publishedPackages()) {
    const files = await shippedDeclarations(workspacePackage.directory);
    if (files.length === 0) {
      process.stderr.write(`${workspacePackage.name}: no dist/**/*.d.ts (run tsc -b first)\n`);
      failed += 1;
      continue;
    }
    // Packages of one environment are checked in one program (the AI SDK's declarations are read once).
    const environment = await packageEnvironment(workspacePackage.directory);
    const key = JSON.stringify(environment);
    const group = groups.get(key) ?? { environment, directory: workspacePackage.directory, names: [], files: [] };
    group.names.push(workspacePackage.name);
    group.files.push(...files);
    groups.set(key, group);
  }
  for (const { environment, directory, names, files } of groups.values()) {
    // From a package's folder: the `types` its environment names resolve to its devDependencies.
    const result = spawnSync(tsc, declarationCheckArguments(environment, files), { cwd: directory, encoding: "utf8" });
    if (result.error) throw result.error;
    const errors = ownErrors(`${result.stdout}${result.stderr}`, directory);
    if (errors.length === 0) {
      process.stdout.write(`${names.join(", ")}: ${files.length} declaration files check\n`);
    } else {
      failed += 1;
      process.stderr.write(`${names.join(", ")}: their declarations do not type-check\n${errors.join("\n")}\n`);
    }
  }
  if (failed > 0) {
    process.stderr.write("published declarations that a strict consumer project (skipLibCheck: false) cannot check\n");
    process.exit(1);
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
