import { spawnSync } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isPackedPath, linkProblems } from "../src/links.mjs";
import { fencedBlocks, markdownLinks, readReadmeConvention } from "../src/readme.mjs";
import { publishedPackages, REPOSITORY_ROOT } from "../src/workspace.mjs";

const packages = await publishedPackages();

describe("every package README follows the example convention (docs/releasing.md)", () => {
  for (const workspacePackage of packages) {
    it(`${workspacePackage.name}: an install line, a first example and its output; links stay in the package`, async () => {
      const file = path.join(workspacePackage.directory, "README.md");
      const markdown = await readFile(file, "utf8");
      const convention = readReadmeConvention(markdown);
      expect(convention.problems).toEqual([]);
      expect(convention.installLine?.split(/\s+/)).toContain(workspacePackage.name);
      const links = await linkProblems(markdown, {
        file,
        boundary: workspacePackage.directory,
        isPacked: (relativePath) => isPackedPath(workspacePackage.manifest.files, relativePath),
      });
      expect(links).toEqual([]);
    });
  }
});

/** Markdown files of the repository outside the published packages (whose READMEs are checked above). */
async function repositoryMarkdown(): Promise<string[]> {
  const skipped = new Set(["node_modules", "dist", ".git", ".turbo", "test-results", ".demo-data", ".demo-build"]);
  const found: string[] = [];
  const walk = async (directory: string) => {
    for (const entry of await readdir(directory, { withFileTypes: true })) {
      if (skipped.has(entry.name)) continue;
      const full = path.join(directory, entry.name);
      if (entry.isDirectory()) {
        if (!(directory === REPOSITORY_ROOT && entry.name === "packages")) await walk(full);
      } else if (entry.name.endsWith(".md")) found.push(full);
    }
  };
  await walk(REPOSITORY_ROOT);
  for (const workspacePackage of packages) {
    for (const entry of await readdir(workspacePackage.directory, { recursive: true, withFileTypes: true })) {
      const full = path.join(entry.parentPath, entry.name);
      const relative = path.relative(workspacePackage.directory, full);
      if (
        entry.isFile() &&
        entry.name.endsWith(".md") &&
        relative !== "README.md" &&
        !relative.includes("node_modules")
      ) {
        found.push(full);
      }
    }
  }
  return found.sort();
}

describe("the repository's own Markdown links stay in the repository", () => {
  it("finds the docs", async () => {
    const files = (await repositoryMarkdown()).map((file) => path.relative(REPOSITORY_ROOT, file));
    expect(files).toEqual(expect.arrayContaining(["README.md", "docs/README.md", "docs/spec.md"]));
  });

  it("has no link out of the repository, and none to a missing file", async () => {
    const problems: string[] = [];
    for (const file of await repositoryMarkdown()) {
      const markdown = await readFile(file, "utf8");
      for (const problem of await linkProblems(markdown, { file, boundary: REPOSITORY_ROOT })) {
        problems.push(`${path.relative(REPOSITORY_ROOT, path.dirname(file))}/${problem}`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe("nothing refers to files outside the repository", () => {
  // The folder beside the checkout that held the design notes; a clone of the repository alone does not have it.
  const outsideFolder = ["..", "shared"].join("/"); // built here, so that this file does not mention it

  it("no tracked file mentions the shared folder beside the checkout", async () => {
    const listed = spawnSync("git", ["ls-files", "-z"], { cwd: REPOSITORY_ROOT, encoding: "utf8" });
    expect(listed.status).toBe(0);
    const files = listed.stdout.split("\0").filter((file) => file !== "" && !file.endsWith("pnpm-lock.yaml"));
    expect(files.length).toBeGreaterThan(100);
    const mentions: string[] = [];
    for (const file of files) {
      const text = await readFile(path.join(REPOSITORY_ROOT, file), "utf8").catch(() => "");
      if (text.includes(outsideFolder)) mentions.push(file);
    }
    expect(mentions).toEqual([]);
  });
});

describe("README convention parser", () => {
  const readme = [
    "# pkg",
    "",
    "```ts",
    "// an indented or earlier block in another language does not count",
    "```",
    "",
    "## Install",
    "Needs Node 22.",
    "```sh",
    "npm i @agent-tools/pkg ai",
    "```",
    "",
    "- a list item with a block:",
    "",
    "  ```tsx",
    "  console.log(<b />);",
    "  ```",
    "",
    "```text",
    "printed",
    "",
    "```",
    "",
    "```text",
    "a later text block",
    "```",
  ].join("\n");

  it("takes the one npm i line of ## Install", () => {
    expect(readReadmeConvention(readme).installLine).toBe("npm i @agent-tools/pkg ai");
  });

  it("runs the npm i -D lines (types for TypeScript) after the one npm i line, without their comments", () => {
    const withTypes =
      "## Install\nNeeds Node 22.\n```sh\nnpm i a react\nnpm i -D @types/react  # TypeScript\n```\n\n```js\nconsole.log(1)\n```\n\n```text\n1\n```\n";
    const convention = readReadmeConvention(withTypes);
    expect(convention.problems).toEqual([]);
    expect(convention.installLine).toBe("npm i a react && npm i -D @types/react");
  });

  it("takes the first ts/tsx/js/mjs block as the example (even before ## Install), and the next text block", () => {
    const { example, problems } = readReadmeConvention(readme);
    expect(problems).toEqual([]);
    expect(example).toMatchObject({ language: "ts", fileName: "example.ts", runner: "node", line: 3 });
    expect(example?.code).toBe("// an indented or earlier block in another language does not count");
    expect(example?.expectedOutput).toBe("printed");
  });

  it("strips a list item's indentation from a block", () => {
    const blocks = fencedBlocks(readme);
    expect(blocks.map((block) => block.language)).toEqual(["ts", "sh", "tsx", "text", "text"]);
    expect(blocks[2]?.code).toBe("console.log(<b />);");
  });

  it("reads runner attributes: `ts wrangler path=/hello`, and the wrangler.jsonc after the example", () => {
    const { example, problems } = readReadmeConvention(
      "## Install\nNeeds Node 22.\n```sh\nnpm i x\nnpm i -D wrangler@4.164.0\n```\n\n```ts wrangler path=/hello\nexport default {};\n```\n\n" +
        '```text\nhi\n```\n\n```jsonc\n{ "main": "src/worker.ts" }\n```\n',
    );
    expect(problems).toEqual([]);
    expect(example).toMatchObject({
      runner: "wrangler",
      attributes: { runner: "wrangler", path: "/hello" },
      config: '{ "main": "src/worker.ts" }',
    });
  });

  it("wants a wrangler example's wrangler.jsonc, and wrangler installed at an exact version", () => {
    const readme = (install: string) =>
      `## Install\nNeeds Node 22.\n\`\`\`sh\nnpm i x\n${install}\n\`\`\`\n\n\`\`\`ts wrangler\nexport default {};\n\`\`\`\n\n\`\`\`text\nhi\n\`\`\`\n`;
    expect(readReadmeConvention(readme("npm i -D wrangler")).problems).toEqual([
      "the wrangler example (line 8) has no ```jsonc block after it (its wrangler.jsonc)",
      "the wrangler example's install lines do not name wrangler at an exact version (wrangler@x.y.z)",
    ]);
    expect(readReadmeConvention(readme("npm i -D wrangler@4")).problems).toContain(
      "the wrangler example's install lines do not name wrangler at an exact version (wrangler@x.y.z)",
    );
  });

  it("reports what is missing", () => {
    expect(readReadmeConvention("# nothing\n").problems).toEqual([
      "no `## Install` section",
      "no example: no code block in ts, tsx, js, mjs",
    ]);
    const twoLines = "## Install\nNeeds Node 22.\n```sh\nnpm i a\nnpm i b\n```\n\n```js\nconsole.log(1)\n```\n";
    expect(readReadmeConvention(twoLines).problems).toEqual([
      '`## Install`\'s sh block should have exactly one line starting "npm i ", has 2',
      "the first example (line 8) has no ```text block after it with its output",
    ]);
    const noNode = "## Install\n\n```sh\nnpm i a\n```\n\n```js\nconsole.log(1)\n```\n\n```text\n1\n```\n";
    expect(readReadmeConvention(noNode).problems).toEqual([
      "`## Install` does not say first which Node it needs (e.g. Node 22), before its ```sh block",
    ]);
    const unknownRunner = "## Install\nNeeds Node 22.\n```sh\nnpm i a\n```\n\n```ts deno\n1\n```\n\n```text\n1\n```\n";
    expect(readReadmeConvention(unknownRunner).problems).toEqual([
      'the first example (line 7) asks for an unknown runner "deno"',
    ]);
  });

  it("finds links in prose, not in code", () => {
    const markdown = [
      'See [a](./a.md), ![b](img/b.png "title") and <https://example.com/x>.',
      "`[not](a-link.md)` in a code span",
      "```md",
      "[not](in-a-block.md)",
      "```",
      "[ref]: ../outside.md",
    ].join("\n");
    expect(markdownLinks(markdown)).toEqual([
      { target: "./a.md", line: 1 },
      { target: "img/b.png", line: 1 },
      { target: "https://example.com/x", line: 1 },
      { target: "../outside.md", line: 6 },
    ]);
  });

  it("judges packed paths from `files`", () => {
    const files = ["dist", "!dist/.tsbuildinfo", "!dist/**/*.test.*", "src", "!src/**/*.test.ts"];
    expect(isPackedPath(files, "README.md")).toBe(true);
    expect(isPackedPath(files, "dist/index.js")).toBe(true);
    expect(isPackedPath(files, "dist/.tsbuildinfo")).toBe(false);
    expect(isPackedPath(files, "dist/deep/a.test.js")).toBe(false);
    expect(isPackedPath(files, "src/a.test.ts")).toBe(false);
    expect(isPackedPath(files, "examples/quick-start.ts")).toBe(false);
  });

  it("refuses links out of a package, to unpacked files, and to other sites", async () => {
    const file = path.join(REPOSITORY_ROOT, "packages", "core-runs", "README.md");
    const problems = await linkProblems(
      [
        "[sibling](../detached/README.md) [unpacked](./vitest.config.ts) [site](https://example.com)",
        "[ok](./README.md) [repo](https://github.com/agent-tools/agent-tools/blob/main/docs/spec.md) [anchor](#x)",
        "[missing](./nope.md)",
      ].join("\n"),
      {
        file,
        boundary: path.dirname(file),
        isPacked: (relativePath) => isPackedPath(["dist", "src"], relativePath),
      },
    );
    expect(problems).toEqual([
      "README.md:1: ../detached/README.md is outside the package (use https://github.com/agent-tools/agent-tools/blob/main/… for repository files)",
      'README.md:1: ./vitest.config.ts is not in the package\'s tarball (see "files" in package.json)',
      "README.md:1: https://example.com leaves the repository (link into it, or into docs/)",
      "README.md:3: ./nope.md does not exist",
    ]);
  });
});
