import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fixMetadata, metadataProblems } from "../src/metadata.mjs";
import { publishedPackages, REPOSITORY_ROOT } from "../src/workspace.mjs";

const packages = await publishedPackages();

describe("release metadata of every published package (pnpm packages:fix writes the generic fields)", () => {
  it("finds the published packages under packages/", () => {
    expect(packages.map((workspacePackage) => workspacePackage.name)).toContain("@agent-tools/core-runs");
    expect(packages.every((workspacePackage) => workspacePackage.manifest.private !== true)).toBe(true);
  });

  for (const workspacePackage of packages) {
    it(`${workspacePackage.name}: license, repository, homepage, bugs, engines, keywords, prepack, LICENSE`, async () => {
      expect(await metadataProblems(workspacePackage)).toEqual([]);
    });
  }
});

describe("package discovery and the metadata fixer", () => {
  let root: string | undefined;
  afterEach(async () => {
    if (root) await rm(root, { recursive: true, force: true });
    root = undefined;
  });

  async function fixtureWorkspace(): Promise<string> {
    const directory = await mkdtemp(path.join(tmpdir(), "package-checks-"));
    await writeFile(path.join(directory, "LICENSE"), await readFile(path.join(REPOSITORY_ROOT, "LICENSE"), "utf8"));
    const write = async (folder: string, manifest: object | null, tsconfig?: object) => {
      await mkdir(path.join(directory, "packages", folder), { recursive: true });
      if (manifest) await writeFile(path.join(directory, "packages", folder, "package.json"), JSON.stringify(manifest));
      if (tsconfig)
        await writeFile(path.join(directory, "packages", folder, "tsconfig.json"), JSON.stringify(tsconfig));
    };
    await write(
      "new-one",
      {
        name: "@agent-tools/new-one",
        version: "0.0.0",
        description: "A new package.",
        type: "module",
        files: ["dist", "README.md"],
        scripts: { build: "tsc -b" },
      },
      { compilerOptions: { tsBuildInfoFile: "dist/.tsbuildinfo" } },
    );
    await write("internal", { name: "@agent-tools/internal", private: true });
    await write("not-a-package", null);
    return directory;
  }

  it("lists only non-private folders with a package.json", async () => {
    root = await fixtureWorkspace();
    const found = await publishedPackages(root);
    expect(found.map(({ name, relativeDirectory }) => ({ name, relativeDirectory }))).toEqual([
      { name: "@agent-tools/new-one", relativeDirectory: "packages/new-one" },
    ]);
  });

  it("reports a new package's missing fields, and --fix leaves none while keeping existing keys in place", async () => {
    root = await fixtureWorkspace();
    const [fresh] = await publishedPackages(root);
    if (!fresh) throw new Error("fixture package not found");
    const problems = await metadataProblems(fresh, root);
    expect(problems.join("\n")).toMatch(/repository/);
    expect(problems.join("\n")).toMatch(/LICENSE is missing/);
    expect(problems.join("\n")).toMatch(/!dist\/\.tsbuildinfo/);

    expect(await fixMetadata(fresh, root)).toBe(true);
    const [fixed] = await publishedPackages(root);
    if (!fixed) throw new Error("fixture package not found");
    expect(await metadataProblems(fixed, root)).toEqual([]);
    expect(Object.keys(fixed.manifest).slice(0, 3)).toEqual(["name", "version", "description"]);
    expect(fixed.manifest.files).toEqual(["dist", "!dist/.tsbuildinfo", "README.md"]);
    expect(fixed.manifest.repository).toEqual({
      type: "git",
      url: "git+https://github.com/agent-tools/agent-tools.git",
      directory: "packages/new-one",
    });
    expect(await fixMetadata(fixed, root)).toBe(false); // idempotent
  });
});
