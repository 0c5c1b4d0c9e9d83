// The README's first example must run as written and print what the README says it prints (the registry's consumer
// test runs it the same way, with `npx tsx`, from the published package).
import { describe, expect, it, vi } from "vitest";

/**
 * CPU-heavy (it loads the AI SDK and runs the README's example): a time budget of its own. vitest's five-second
 * default is for unit tests, and a busy machine runs this several times slower than an idle one; the budget still ends
 * a test that hangs.
 */
const CPU_HEAVY = { timeout: 60_000 };

// Specifiers in variables: the package compiles without Node's types, so tsc must not follow them.
const NODE_FS = "node:fs/promises";
type Fs = {
  readFile(path: URL, encoding: "utf8"): Promise<string>;
  writeFile(path: URL, text: string): Promise<void>;
  mkdir(path: URL, options: { recursive: true }): Promise<unknown>;
};

/** The first code block whose info string is ts, tsx, js or mjs, and the first ```text block after it. */
function firstExample(markdown: string): { extension: string; code: string; expected: string } {
  const example = /^```(ts|tsx|js|mjs)\n([\s\S]*?)^```$/m.exec(markdown);
  if (!example?.[1] || !example[2]) throw new Error("README.md has no ts/tsx/js/mjs code block");
  const rest = markdown.slice(example.index + example[0].length);
  const output = /^```text\n([\s\S]*?)^```$/m.exec(rest);
  if (!output?.[1]) throw new Error("README.md's first example has no ```text block after it");
  return { extension: example[1], code: example[2], expected: output[1].trimEnd() };
}

describe("README", CPU_HEAVY, () => {
  it("has a first example that runs as written and prints what the README says", async () => {
    const fs = (await import(/* @vite-ignore */ NODE_FS)) as Fs;
    const readme = await fs.readFile(new URL("../README.md", import.meta.url), "utf8");
    // What Node it needs first, then one `npm i` line and `npm i -D` lines for type packages (the README convention).
    expect(readme).toMatch(
      /^## Install\n\n(?:(?!```)[\s\S])*\bNode 22\b(?:(?!```)[\s\S])*```sh\nnpm i @agent-tools\/client ai@7\n(npm i -D [^\n]+\n)*```$/m,
    );
    const { extension, code, expected } = firstExample(readme);
    // Saved inside the package (dist/ is git-ignored), so that the package resolves by its own name.
    const folder = new URL("../dist/readme-example/", import.meta.url);
    await fs.mkdir(folder, { recursive: true });
    const file = new URL(`example.${extension}`, folder);
    await fs.writeFile(file, code);
    const printed: string[] = [];
    const log = vi.spyOn(console, "log").mockImplementation((...values: unknown[]) => {
      printed.push(values.map(String).join(" "));
    });
    try {
      await import(/* @vite-ignore */ file.href);
    } finally {
      log.mockRestore();
    }
    expect(printed.join("\n")).toBe(expected);
  });
});
