// Every workspace project's tests run the sources of the workspace packages they import, never a build: a fresh clone
// tests without `tsc -b`, and a test sees a changed source at once. Checked where it is decided: each project's Vite
// resolver (in both of its environments), each published package's `exports`, and TypeScript's resolved options.
import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { SOURCE_CONDITION } from "@agent-tools/test-setup";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createVitest, type TestProject, type Vitest } from "vitest/node";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const run = promisify(execFile);

type Manifest = {
  name: string;
  private?: boolean;
  scripts?: Record<string, string>;
  exports?: Record<string, unknown>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
};

type WorkspaceFolder = { folder: string; directory: string; manifest: Manifest };

function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, "utf8")) as T;
}

/** The workspace's package folders, from pnpm-workspace.yaml's `packages` globs (each of the form `dir/*`). */
function workspaceFolders(): WorkspaceFolder[] {
  const yaml = readFileSync(path.join(ROOT, "pnpm-workspace.yaml"), "utf8");
  const globs = [...yaml.matchAll(/^ {2}- "([^"]+)\/\*"$/gm)].map((match) => match[1] ?? "");
  expect(globs.length, "pnpm-workspace.yaml lists its package folders").toBeGreaterThan(0);
  return globs.flatMap((parent) =>
    readdirSync(path.join(ROOT, parent), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(path.join(ROOT, parent, entry.name, "package.json")))
      .map((entry) => {
        const directory = path.join(ROOT, parent, entry.name);
        return {
          folder: `${parent}/${entry.name}`,
          directory,
          manifest: readJson<Manifest>(path.join(directory, "package.json")),
        };
      }),
  );
}

const FOLDERS = workspaceFolders();
const BY_NAME = new Map(FOLDERS.map((workspace) => [workspace.manifest.name, workspace]));
const WITH_TESTS = FOLDERS.filter((workspace) => existsSync(path.join(workspace.directory, "vitest.config.ts")));
const PUBLISHED = FOLDERS.filter(
  (workspace) => workspace.folder.startsWith("packages/") && !workspace.manifest.private,
);

/** Each subpath of a package's exports and the source file its `@agent-tools/source` condition names, if any. */
function sourceExports(manifest: Manifest): Array<{ subpath: string; source: string | undefined; target: unknown }> {
  return Object.entries(manifest.exports ?? {})
    .filter(([subpath]) => subpath !== "./package.json")
    .map(([subpath, target]) => {
      const source =
        typeof target === "object" && target !== null
          ? (target as Record<string, unknown>)[SOURCE_CONDITION]
          : undefined;
      return { subpath, source: typeof source === "string" ? source : undefined, target };
    });
}

/** The workspace packages a project may import: the ones it declares, and itself (by its own name). */
function importableWorkspacePackages(workspace: WorkspaceFolder): WorkspaceFolder[] {
  const { manifest } = workspace;
  const declared = Object.keys({
    ...manifest.dependencies,
    ...manifest.devDependencies,
    ...manifest.peerDependencies,
  });
  return [workspace, ...declared.flatMap((name) => BY_NAME.get(name) ?? [])].filter((candidate) =>
    sourceExports(candidate.manifest).some((entry) => entry.source !== undefined),
  );
}

let vitest: Vitest | undefined;

beforeAll(async () => {
  // The root configuration, as `pnpm test` loads it, with no reporter (nothing runs).
  vitest = await createVitest({ root: ROOT, config: path.join(ROOT, "vitest.config.ts"), watch: false, reporters: [] });
}, 60_000); // a Vite server per project: under a second in all on an idle machine

afterAll(async () => {
  await vitest?.close();
});

function projectAt(directory: string): TestProject {
  const found = vitest?.projects.filter((project) => path.resolve(project.config.root) === path.resolve(directory));
  expect(found, `one project of the root run has its root at ${directory}`).toHaveLength(1);
  return found?.[0] as TestProject;
}

describe.each(WITH_TESTS)("the vitest project of $folder", (workspace) => {
  it("is in the root run, named after its folder, and `pnpm --filter <it> test` runs it", () => {
    expect(projectAt(workspace.directory).name).toBe(path.basename(workspace.directory));
    expect(workspace.manifest.scripts?.["test"]).toBe("vitest run");
  });

  it("resolves every export of the workspace packages it imports to its TypeScript source, in Node and in happy-dom", async () => {
    const project = projectAt(workspace.directory);
    const importer = path.join(workspace.directory, "vitest.config.ts");
    const resolved: string[] = [];
    const expected: string[] = [];
    for (const target of importableWorkspacePackages(workspace)) {
      for (const { subpath, source } of sourceExports(target.manifest)) {
        if (source === undefined) continue;
        const specifier = path.posix.join(target.manifest.name, subpath);
        for (const environment of ["ssr", "client"] as const) {
          const result = await project.vite.environments[environment]?.pluginContainer.resolveId(specifier, importer);
          resolved.push(`${environment} ${specifier} → ${result?.id ?? "(unresolved)"}`);
          expected.push(`${environment} ${specifier} → ${path.join(target.directory, source)}`);
        }
      }
    }
    expect(resolved).toEqual(expected);
  });
});

describe.each(PUBLISHED)("the exports of $manifest.name", (workspace) => {
  it("map each subpath to its source under the source condition, beside the built file", () => {
    const entries = sourceExports(workspace.manifest);
    expect(entries.length).toBeGreaterThan(0);
    for (const { subpath, source, target } of entries) {
      const built = (target as Record<string, unknown>)["default"];
      expect(source, `${subpath} has a "${SOURCE_CONDITION}" condition`).toMatch(/^\.\/src\/.+\.tsx?$/);
      expect(existsSync(path.join(workspace.directory, source ?? "")), `${subpath}: ${source} exists`).toBe(true);
      // The source and the built file are the same module: ./src/a/b.ts is built to ./dist/a/b.js.
      expect(built, `${subpath}'s default is the build of its source`).toBe(
        source?.replace(/^\.\/src\//, "./dist/").replace(/\.tsx?$/, ".js"),
      );
    }
  });
});

describe("TypeScript", () => {
  it("resolves through the source condition in every tsconfig, with no path mapping of its own", async () => {
    const { stdout } = await run("git", ["ls-files", "--cached", "--others", "--exclude-standard"], { cwd: ROOT });
    const tsconfigs = stdout
      .split("\n")
      .filter((file) => /(^|\/)tsconfig[^/]*\.json$/.test(file) && file !== "tsconfig.base.json");
    expect(tsconfigs.length).toBeGreaterThan(FOLDERS.length / 2);
    const tsc = path.join(path.dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin/tsc");
    const problems: string[] = [];
    for (const tsconfig of tsconfigs) {
      const shown = await run(process.execPath, [tsc, "--showConfig", "-p", tsconfig], { cwd: ROOT });
      const options = (JSON.parse(shown.stdout) as { compilerOptions: Record<string, unknown> }).compilerOptions;
      if (JSON.stringify(options["customConditions"]) !== JSON.stringify([SOURCE_CONDITION])) {
        problems.push(`${tsconfig}: customConditions is ${JSON.stringify(options["customConditions"])}`);
      }
      const mapped = Object.keys((options["paths"] as Record<string, unknown> | undefined) ?? {});
      for (const key of mapped.filter((name) => name.startsWith("@agent-tools/"))) {
        problems.push(`${tsconfig}: maps ${key} by "paths" instead of resolving its exports`);
      }
    }
    expect(problems).toEqual([]);
  }, 60_000); // one tsc per tsconfig: about 0.1 s each on an idle machine, a budget a busy one meets
});
