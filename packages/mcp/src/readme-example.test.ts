import { afterEach, describe, expect, it, vi } from "vitest";

// The README's first example, as a consumer runs it: examples/readme.ts holds it verbatim, and running it prints the
// README's ```text block. (The consumer test runs the same block from the published packages: docs/releasing.md.)

// Specifiers in variables: examples/ is outside this project's tsconfig (rootDir "src").
const EXAMPLE = "../examples/readme.js";
const NODE_FS = "node:fs/promises";

async function readPackageFile(relativePath: string): Promise<string> {
  const fs = (await import(/* @vite-ignore */ NODE_FS)) as {
    readFile(path: URL, encoding: "utf8"): Promise<string>;
  };
  return fs.readFile(new URL(relativePath, import.meta.url), "utf8");
}

function exampleAndOutput(markdown: string): { code: string; output: string } {
  const example = /^```ts\n([\s\S]*?)^```$/m.exec(markdown);
  if (!example?.[1]) throw new Error("README.md has no ```ts code block");
  const output = /^```text\n([\s\S]*?)^```$/m.exec(markdown.slice(example.index + example[0].length));
  if (!output?.[1]) throw new Error("README.md has no ```text block after its first example");
  return { code: example[1].trim(), output: output[1].trimEnd() };
}

describe("README example", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("is examples/readme.ts verbatim, and prints the README's output", async () => {
    const [readme, example] = await Promise.all([
      readPackageFile("../README.md"),
      readPackageFile("../examples/readme.ts"),
    ]);
    const { code, output } = exampleAndOutput(readme);
    expect(code).toBe(example.trim());
    const printed: string[] = [];
    vi.spyOn(console, "log").mockImplementation((...values: unknown[]) => {
      printed.push(values.map(String).join(" "));
    });
    await import(/* @vite-ignore */ EXAMPLE);
    expect(printed.join("\n")).toBe(output);
  });
});
