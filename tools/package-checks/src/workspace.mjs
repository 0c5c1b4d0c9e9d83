// @ts-check
// The published packages of the workspace, found rather than listed: every package.json directly under packages/
// that is not `"private": true`. A new package is covered by every check (metadata, README, consumer test) as soon
// as its folder exists.

import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root folder (this file is tools/package-checks/src/workspace.mjs). */
export const REPOSITORY_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/**
 * The canonical repository. There is no remote here yet; package metadata and README links use this address, with
 * `repository.directory` per package.
 */
export const REPOSITORY_URL = "https://github.com/agent-tools/agent-tools";

/** The branch README links point at (`<REPOSITORY_URL>/blob/main/...`). */
export const DEFAULT_BRANCH = "main";

/** The folder whose direct subfolders are the published packages. */
export const PACKAGES_FOLDER = "packages";

/**
 * @typedef {object} WorkspacePackage
 * @property {string} name the package name, e.g. "@agent-tools/core-runs"
 * @property {string} directory absolute path of the package folder
 * @property {string} relativeDirectory the folder relative to the repository root, with "/", e.g. "packages/core-runs"
 * @property {string} folderName the last segment, e.g. "core-runs"
 * @property {PackageManifest} manifest the parsed package.json
 */

/**
 * The parts of a package.json these checks read; anything else is kept as it is.
 * @typedef {{
 *   name: string,
 *   version?: string,
 *   private?: boolean,
 *   description?: string,
 *   keywords?: string[],
 *   files?: string[],
 *   scripts?: { build?: string, prepack?: string, [name: string]: string | undefined },
 *   exports?: Record<string, unknown>,
 *   dependencies?: Record<string, string>,
 *   peerDependencies?: Record<string, string>,
 *   repository?: unknown,
 *   [field: string]: unknown,
 * }} PackageManifest
 */

/**
 * Every published (non-private) package under packages/, sorted by folder name.
 * @param {string} [root]
 * @returns {Promise<WorkspacePackage[]>}
 */
export async function publishedPackages(root = REPOSITORY_ROOT) {
  const packagesDirectory = path.join(root, PACKAGES_FOLDER);
  const entries = await readdir(packagesDirectory, { withFileTypes: true });
  /** @type {WorkspacePackage[]} */
  const found = [];
  for (const entry of entries.filter((candidate) => candidate.isDirectory()).sort(byName)) {
    const directory = path.join(packagesDirectory, entry.name);
    let text;
    try {
      text = await readFile(path.join(directory, "package.json"), "utf8");
    } catch (error) {
      if (/** @type {NodeJS.ErrnoException} */ (error).code === "ENOENT") continue; // not a package
      throw error;
    }
    const manifest = JSON.parse(text);
    if (manifest.private === true) continue;
    found.push({
      name: manifest.name,
      directory,
      relativeDirectory: `${PACKAGES_FOLDER}/${entry.name}`,
      folderName: entry.name,
      manifest,
    });
  }
  return found;
}

/**
 * @param {{ name: string }} left
 * @param {{ name: string }} right
 */
function byName(left, right) {
  return left.name < right.name ? -1 : left.name > right.name ? 1 : 0;
}
