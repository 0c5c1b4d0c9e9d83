#!/usr/bin/env node
// @ts-check
// What every published package's package.json and folder must have to be released: the same license, repository,
// homepage, bugs, engines and publish access; keywords; a build that runs before packing; no TypeScript build info in
// the tarball; and a LICENSE file equal to the repository's.
//
//   node tools/package-checks/src/metadata.mjs          report problems, exit 1 if any (`pnpm packages:check`)
//   node tools/package-checks/src/metadata.mjs --fix    write the generic fields and copy LICENSE (`pnpm packages:fix`)
//
// `--fix` never touches what only the package's author can write (description, keywords beyond "agent-tools").

import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { DEFAULT_BRANCH, publishedPackages, REPOSITORY_ROOT, REPOSITORY_URL } from "./workspace.mjs";

/** The Node versions the packages support (docs/decisions/2026-12-03-node-22.md). */
export const SUPPORTED_NODE = ">=22";

/** Every package builds before `pnpm pack` / `pnpm publish` packs it. */
export const PREPACK_SCRIPT = "pnpm run build";

/** The keyword every package carries, so that they can be found together. */
export const SHARED_KEYWORD = "agent-tools";

/**
 * The fields every published package has, with the same values (only `repository.directory` and `homepage` name
 * the package's folder).
 * @param {import("./workspace.mjs").WorkspacePackage} workspacePackage
 */
export function expectedFields(workspacePackage) {
  return {
    license: "MIT",
    homepage: `${REPOSITORY_URL}/tree/${DEFAULT_BRANCH}/${workspacePackage.relativeDirectory}#readme`,
    bugs: { url: `${REPOSITORY_URL}/issues` },
    repository: { type: "git", url: `git+${REPOSITORY_URL}.git`, directory: workspacePackage.relativeDirectory },
    engines: { node: SUPPORTED_NODE },
    publishConfig: { access: "public" },
  };
}

/**
 * The `files` negations a package needs so that TypeScript's build info, written inside a packed folder, stays out
 * of the tarball (e.g. "!dist/.tsbuildinfo").
 * @param {import("./workspace.mjs").WorkspacePackage} workspacePackage
 * @returns {Promise<string[]>}
 */
export async function requiredFileExclusions(workspacePackage) {
  let tsconfig;
  try {
    tsconfig = JSON.parse(await readFile(path.join(workspacePackage.directory, "tsconfig.json"), "utf8"));
  } catch (error) {
    if (/** @type {NodeJS.ErrnoException} */ (error).code === "ENOENT") return [];
    throw error;
  }
  const buildInfo = tsconfig?.compilerOptions?.tsBuildInfoFile;
  if (typeof buildInfo !== "string") return [];
  const normalized = path.posix.normalize(buildInfo.replaceAll("\\", "/")).replace(/^\.\//, "");
  /** @type {unknown[]} */
  const files = Array.isArray(workspacePackage.manifest.files) ? workspacePackage.manifest.files : [];
  const packed = files.some(
    (entry) =>
      typeof entry === "string" &&
      !entry.startsWith("!") &&
      (normalized === entry || normalized.startsWith(`${entry}/`)),
  );
  return packed ? [`!${normalized}`] : [];
}

/**
 * What is wrong with a package's metadata, as sentences; empty when nothing is.
 * @param {import("./workspace.mjs").WorkspacePackage} workspacePackage
 * @param {string} [root]
 * @returns {Promise<string[]>}
 */
export async function metadataProblems(workspacePackage, root = REPOSITORY_ROOT) {
  const { manifest } = workspacePackage;
  /** @type {string[]} */
  const problems = [];
  for (const [field, expected] of Object.entries(expectedFields(workspacePackage))) {
    if (!isDeepStrictEqual(manifest[field], expected)) {
      problems.push(`"${field}" should be ${JSON.stringify(expected)}, is ${JSON.stringify(manifest[field])}`);
    }
  }
  if (typeof manifest.description !== "string" || manifest.description.trim() === "") {
    problems.push(`"description" is missing`);
  }
  if (!Array.isArray(manifest.keywords) || !manifest.keywords.includes(SHARED_KEYWORD)) {
    problems.push(`"keywords" should list "${SHARED_KEYWORD}" (and words a user would search for)`);
  }
  if (typeof manifest.scripts?.build !== "string") problems.push(`"scripts.build" is missing`);
  if (manifest.scripts?.prepack !== PREPACK_SCRIPT) {
    problems.push(`"scripts.prepack" should be "${PREPACK_SCRIPT}" (build before packing)`);
  }
  if (!Array.isArray(manifest.files)) problems.push(`"files" is missing`);
  for (const exclusion of await requiredFileExclusions(workspacePackage)) {
    if (!manifest.files?.includes(exclusion)) {
      problems.push(`"files" should contain "${exclusion}" (TypeScript's build info stays out of the tarball)`);
    }
  }
  const [license, rootLicense] = await Promise.all([
    readFile(path.join(workspacePackage.directory, "LICENSE"), "utf8").catch(() => null),
    readFile(path.join(root, "LICENSE"), "utf8"),
  ]);
  if (license === null) problems.push("LICENSE is missing (a copy of the repository's LICENSE)");
  else if (license !== rootLicense) problems.push("LICENSE differs from the repository's LICENSE");
  return problems;
}

/**
 * Write the generic fields, the `files` exclusions and the LICENSE copy. Existing keys keep their place; new ones
 * go after a related key. Returns whether anything changed.
 * @param {import("./workspace.mjs").WorkspacePackage} workspacePackage
 * @param {string} [root]
 */
export async function fixMetadata(workspacePackage, root = REPOSITORY_ROOT) {
  const manifestPath = path.join(workspacePackage.directory, "package.json");
  const before = await readFile(manifestPath, "utf8");
  /** @type {import("./workspace.mjs").PackageManifest} */
  let manifest = JSON.parse(before);
  const expected = expectedFields(workspacePackage);
  // Where a missing field goes: after the first of these keys that the manifest has (else at the end).
  /** @type {Record<string, string[]>} */
  const placeAfter = {
    keywords: ["description", "version", "name"],
    homepage: ["keywords", "description"],
    bugs: ["homepage"],
    repository: ["bugs", "homepage"],
    license: ["repository", "description"],
    engines: ["files", "exports"],
    publishConfig: ["engines"],
  };
  /** @param {string} key @param {unknown} value */
  const setField = (key, value) => {
    if (key in manifest) {
      manifest[key] = value;
      return;
    }
    const anchor = (placeAfter[key] ?? []).find((candidate) => candidate in manifest);
    /** @type {Record<string, unknown>} */
    const next = {};
    if (anchor === undefined) Object.assign(next, manifest, { [key]: value });
    else {
      for (const [existingKey, existingValue] of Object.entries(manifest)) {
        next[existingKey] = existingValue;
        if (existingKey === anchor) next[key] = value;
      }
    }
    manifest = /** @type {import("./workspace.mjs").PackageManifest} */ (next);
  };
  if (!Array.isArray(manifest.keywords)) setField("keywords", [SHARED_KEYWORD]);
  else if (!manifest.keywords.includes(SHARED_KEYWORD)) manifest.keywords = [SHARED_KEYWORD, ...manifest.keywords];
  for (const [key, value] of Object.entries(expected)) setField(key, value);
  if (manifest.scripts?.prepack !== PREPACK_SCRIPT) {
    manifest.scripts = { ...(manifest.scripts ?? {}), prepack: PREPACK_SCRIPT };
  }
  const exclusions = await requiredFileExclusions({ ...workspacePackage, manifest });
  for (const exclusion of exclusions) {
    if (!Array.isArray(manifest.files) || manifest.files.includes(exclusion)) continue;
    const folder = exclusion.slice(1).split("/")[0] ?? "";
    const at = manifest.files.indexOf(folder);
    manifest.files.splice(at === -1 ? manifest.files.length : at + 1, 0, exclusion);
  }
  const after = `${JSON.stringify(manifest, null, 2)}\n`;
  let changed = false;
  if (after !== before) {
    await writeFile(manifestPath, after);
    changed = true;
  }
  const licensePath = path.join(workspacePackage.directory, "LICENSE");
  const rootLicense = await readFile(path.join(root, "LICENSE"), "utf8");
  if ((await readFile(licensePath, "utf8").catch(() => null)) !== rootLicense) {
    await writeFile(licensePath, rootLicense);
    changed = true;
  }
  return changed;
}

async function main() {
  const fix = process.argv.includes("--fix");
  let failed = false;
  for (const workspacePackage of await publishedPackages()) {
    if (fix && (await fixMetadata(workspacePackage))) {
      process.stdout.write(`${workspacePackage.name}: fixed\n`);
    }
    const [current] = (await publishedPackages()).filter((candidate) => candidate.name === workspacePackage.name);
    const problems = current ? await metadataProblems(current) : ["disappeared"];
    for (const problem of problems) process.stderr.write(`${workspacePackage.name}: ${problem}\n`);
    failed ||= problems.length > 0;
  }
  if (failed) {
    process.stderr.write("package metadata: problems found (`pnpm packages:fix` writes the generic fields)\n");
    process.exitCode = 1;
  } else {
    process.stdout.write("package metadata: ok\n");
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
}
