// @ts-check
// What each published package's root exports, and whether a user of the package writes it. A root ("." of the
// exports map) holds what a user writes; what the workspace's own packages share is at "./internal", which is not API.
//
// A root's names come from the TypeScript compiler (its API over the package's own tsconfig.json, reading
// src/index.ts as the `@agent-tools/source` condition does). A name is a user's when
//   - an example imports it from the package: an `import { … } from "<package>"` in any README, in docs/, in
//     apps/demo or in a package's examples/; or
//   - the package's own README names it (its API tables and prose); or
//   - docs/spec.md, the contract users read, names it.

import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { API } from "typescript/unstable/sync";
import { REPOSITORY_ROOT } from "./workspace.mjs";

/** @typedef {import("./workspace.mjs").WorkspacePackage} WorkspacePackage */

/**
 * The names each of `entries` exports (both values and types), by the TypeScript compiler.
 * @param {WorkspacePackage[]} packages
 * @param {string} entry the entry file, relative to a package's folder (e.g. "src/index.ts")
 * @returns {Map<string, string[]>} package name → its entry's exported names, sorted
 */
export function entryExports(packages, entry) {
  const api = new API({ cwd: REPOSITORY_ROOT });
  try {
    const configs = packages.map((workspacePackage) => path.join(workspacePackage.directory, "tsconfig.json"));
    const snapshot = api.updateSnapshot({ openProjects: configs });
    /** @type {Map<string, string[]>} */
    const exported = new Map();
    for (const workspacePackage of packages) {
      const project = snapshot.getProject(path.join(workspacePackage.directory, "tsconfig.json"));
      const file = path.join(workspacePackage.directory, entry);
      const source = project?.program.getSourceFile(file);
      const symbol = source === undefined ? undefined : project?.checker.getSymbolAtLocation(source);
      if (project === undefined || symbol === undefined)
        throw new Error(`${workspacePackage.name}: cannot read ${entry}`);
      exported.set(
        workspacePackage.name,
        project.checker
          .getExportsOfModule(symbol)
          .map((s) => s.name)
          .sort(),
      );
    }
    return exported;
  } finally {
    api.close();
  }
}

/**
 * The names `text` imports from `specifier` (`import { a, type B, c as d } from "specifier"` gives a, B, c).
 * @param {string} text
 * @param {string} specifier
 */
export function namesImportedFrom(text, specifier) {
  /** @type {Set<string>} */
  const names = new Set();
  for (const match of text.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s*from\s*["']([^"']+)["']/g)) {
    if (match[2] !== specifier) continue;
    for (const part of (match[1] ?? "").split(",")) {
      const name = part
        .trim()
        .replace(/^type\s+/, "")
        .split(/\s+as\s+/)[0];
      if (name) names.add(name);
    }
  }
  return names;
}

/**
 * True when `text` has `name` as a whole word.
 * @param {string} text
 * @param {string} name
 */
export function namesWord(text, name) {
  return new RegExp(`(?<![\\w$])${name.replace(/\$/g, "\\$")}(?![\\w$])`).test(text);
}

/**
 * @typedef {object} UserTexts
 * @property {string} examples every README, docs/ page, apps/demo file and package example, joined
 * @property {string} spec docs/spec.md
 * @property {(packageName: string) => string} readme a package's own README
 */

/**
 * The names of `exported` that no user text uses for `packageName` (see the header for what counts).
 * @param {string} packageName
 * @param {readonly string[]} exported
 * @param {UserTexts} texts
 */
export function namesNoUserWrites(packageName, exported, texts) {
  const imported = namesImportedFrom(texts.examples, packageName);
  const readme = texts.readme(packageName);
  return exported.filter((name) => !imported.has(name) && !namesWord(readme, name) && !namesWord(texts.spec, name));
}

/**
 * Files under `directory` (node_modules, dist and dot folders left out) that `keep` accepts.
 * @param {string} directory
 * @param {(file: string) => boolean} keep
 * @returns {Promise<string[]>}
 */
async function filesUnder(directory, keep) {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter((file) => entry(file) && keep(file))
    .sort();

  /** @param {string} file */
  function entry(file) {
    const relative = path.relative(directory, file).split(path.sep);
    return !relative.some((part) => part === "node_modules" || part === "dist" || part.startsWith("."));
  }
}

/**
 * The texts of the repository that show what users write.
 * @param {WorkspacePackage[]} packages
 * @returns {Promise<UserTexts>}
 */
export async function readUserTexts(packages) {
  const read = (/** @type {string} */ file) => readFile(file, "utf8");
  const code = (/** @type {string} */ file) => /\.(ts|tsx|mts|mjs|js|html)$/.test(file);
  const files = [
    path.join(REPOSITORY_ROOT, "README.md"),
    ...packages.map((workspacePackage) => path.join(workspacePackage.directory, "README.md")),
    ...(await filesUnder(path.join(REPOSITORY_ROOT, "docs"), (file) => file.endsWith(".md"))),
    ...(await filesUnder(path.join(REPOSITORY_ROOT, "apps", "demo"), (file) => code(file) || file.endsWith(".md"))),
    ...(
      await Promise.all(
        packages.map((workspacePackage) => filesUnder(path.join(workspacePackage.directory, "examples"), code)),
      )
    ).flat(),
  ];
  const examples = (await Promise.all(files.map(read))).join("\n");
  const spec = await read(path.join(REPOSITORY_ROOT, "docs", "spec.md"));
  /** @type {Map<string, string>} */
  const readmes = new Map();
  for (const workspacePackage of packages) {
    readmes.set(workspacePackage.name, await read(path.join(workspacePackage.directory, "README.md")));
  }
  return { examples, spec, readme: (packageName) => readmes.get(packageName) ?? "" };
}
