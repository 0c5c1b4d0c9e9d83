import { createHash } from "node:crypto";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { basename, extname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { workerBuildOptions } from "./worker-build.mjs";

/** Where bundles are written (git-ignored). */
export const TEST_BUILD_DIRECTORY = fileURLToPath(new URL("../.test-build/", import.meta.url));

const bundles = new Map<string, Promise<string>>();

/**
 * Bundle a Worker entry (TypeScript, workspace packages resolved to their sources) into one ES module under
 * `.test-build/`, and return its absolute path, for `MiniflareHost`'s `scriptPath`.
 *
 * Cached per entry for the life of the process, so each test file bundles once. The file name is
 * derived from the entry's path; it is written to a temporary name and renamed, so test files bundling the same
 * entry in parallel never read a half-written file.
 */
export function bundleWorker(entry: string): Promise<string> {
  const entryPath = resolve(entry);
  let bundle = bundles.get(entryPath);
  if (bundle === undefined) {
    bundle = buildWorker(entryPath);
    bundles.set(entryPath, bundle);
    // A failed build is not cached: the next call retries.
    bundle.catch(() => bundles.delete(entryPath));
  }
  return bundle;
}

async function buildWorker(entryPath: string): Promise<string> {
  // Named after the entry, with a hash of its path so two entries called worker.ts do not collide.
  const hash = createHash("sha256").update(entryPath).digest("hex").slice(0, 12);
  const outfile = join(TEST_BUILD_DIRECTORY, `${basename(entryPath, extname(entryPath))}-${hash}.js`);
  const result = await build({ ...workerBuildOptions(entryPath), outfile, write: false });
  const [output] = result.outputFiles;
  if (output === undefined) throw new Error(`esbuild wrote nothing for ${entryPath}`);
  await mkdir(TEST_BUILD_DIRECTORY, { recursive: true });
  const temporary = `${outfile}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(temporary, output.contents);
  await rename(temporary, outfile);
  return outfile;
}
