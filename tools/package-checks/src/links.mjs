// @ts-check
// Where Markdown links may point. A package README is read on npm, from the tarball: its relative links must name
// files in the tarball, and anything else must be the repository's own address. The repository's other Markdown
// (README, docs/, bench/, …) is read in a clone: relative links must name files of the clone. Neither may point
// outside (no folder beside the checkout, no third-party sites).

import { access } from "node:fs/promises";
import path from "node:path";
import { markdownLinks } from "./readme.mjs";
import { REPOSITORY_URL } from "./workspace.mjs";

/** Files npm always packs, whatever `files` says. */
const ALWAYS_PACKED = ["package.json", "README.md", "LICENSE", "CHANGELOG.md"];

/**
 * Whether a path relative to a package folder is in its tarball, judged from `files` (its folders and files, minus
 * its negations). The consumer test checks the real tarball.
 * @param {string[] | undefined} files the manifest's `files`
 * @param {string} relativePath with "/"
 */
export function isPackedPath(files, relativePath) {
  if (ALWAYS_PACKED.includes(relativePath)) return true;
  const entries = files ?? [];
  const covers = (/** @type {string} */ entry) =>
    relativePath === entry ||
    relativePath.startsWith(`${entry.replace(/\/$/, "")}/`) ||
    globMatches(entry, relativePath);
  const included = entries.filter((entry) => !entry.startsWith("!")).some(covers);
  const excluded = entries.filter((entry) => entry.startsWith("!")).some((entry) => covers(entry.slice(1)));
  return included && !excluded;
}

/**
 * `*` (within a segment) and `**` (any depth) globs, enough for `files` entries such as "!src/**\/*.test.ts".
 * @param {string} pattern
 * @param {string} candidate
 */
function globMatches(pattern, candidate) {
  if (!pattern.includes("*")) return false;
  const segments = pattern.split("/");
  let source = "";
  segments.forEach((segment, index) => {
    const last = index === segments.length - 1;
    if (segment === "**") source += last ? ".*" : "(?:[^/]+/)*";
    else source += `${segment.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replaceAll("*", "[^/]*")}${last ? "" : "/"}`;
  });
  return new RegExp(`^${source}$`).test(candidate);
}

/**
 * @typedef {object} LinkPolicy
 * @property {string} file the Markdown file (absolute)
 * @property {string} boundary the folder a relative link may not leave (absolute)
 * @property {((relativePath: string) => boolean) | undefined} [isPacked] for a package README: whether a path
 *   (relative to `boundary`) is in the tarball
 */

/**
 * The links of `markdown` that break the policy, as sentences with their line.
 * @param {string} markdown
 * @param {LinkPolicy} policy
 * @returns {Promise<string[]>}
 */
export async function linkProblems(markdown, policy) {
  /** @type {string[]} */
  const problems = [];
  for (const { target, line } of markdownLinks(markdown)) {
    const where = `${path.basename(policy.file)}:${line}`;
    if (target.startsWith("#")) continue;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
      if (target === REPOSITORY_URL || target.startsWith(`${REPOSITORY_URL}/`)) continue;
      problems.push(`${where}: ${target} leaves the repository (link into it, or into docs/)`);
      continue;
    }
    const pathPart = decodeURIComponent(target.split("#")[0] ?? "");
    const resolved = path.resolve(path.dirname(policy.file), pathPart);
    const relative = path.relative(policy.boundary, resolved).split(path.sep).join("/");
    if (relative.startsWith("..") || path.isAbsolute(relative)) {
      problems.push(
        policy.isPacked
          ? `${where}: ${target} is outside the package (use ${REPOSITORY_URL}/blob/main/… for repository files)`
          : `${where}: ${target} is outside the repository`,
      );
      continue;
    }
    try {
      await access(resolved);
    } catch {
      problems.push(`${where}: ${target} does not exist`);
      continue;
    }
    if (policy.isPacked && relative !== "" && !policy.isPacked(relative)) {
      problems.push(`${where}: ${target} is not in the package's tarball (see "files" in package.json)`);
    }
  }
  return problems;
}
