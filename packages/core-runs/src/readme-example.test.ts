import { afterEach, describe, expect, it, vi } from "vitest";

/**
 * CPU-heavy (it loads the AI SDK and runs the README's example): a time budget of its own. vitest's five-second
 * default is for unit tests, and a busy machine runs this several times slower than an idle one; the budget still ends
 * a test that hangs.
 */
const CPU_HEAVY = { timeout: 60_000 };

// The README's quick start, as a consumer runs it: examples/quick-start.ts holds it between region markers, the
// README's first ```ts block must be that code verbatim, and running it must print the README's ```text block.
// (The consumer test runs the same block from the published packages: docs/releasing.md.) vitest.config.ts resolves
// the package's own name to its sources.

// Specifiers in variables: examples/ is outside this project's tsconfig (rootDir "src"), so tsc must not follow
// them, and the package compiles without Node's types.
const QUICK_START = "../examples/quick-start.js";
const NODE_FS = "node:fs/promises";

async function readPackageFile(relativePath: string): Promise<string> {
  const fs = (await import(/* @vite-ignore */ NODE_FS)) as {
    readFile(path: URL, encoding: "utf8"): Promise<string>;
  };
  return fs.readFile(new URL(relativePath, import.meta.url), "utf8");
}

/** The code between `// #region quick-start` and `// #endregion quick-start`. */
function quickStartRegion(source: string): string {
  const match = /^\/\/ #region quick-start\n([\s\S]*?)^\/\/ #endregion quick-start$/m.exec(source);
  if (!match?.[1]) throw new Error("examples/quick-start.ts has no quick-start region");
  return match[1].trim();
}

/** The content of the first fenced block with this info string, and of the first ```text block after it. */
function exampleAndOutput(markdown: string, language: string): { code: string; output: string } {
  const example = new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, "m").exec(markdown);
  if (!example?.[1]) throw new Error(`README.md has no \`\`\`${language} code block`);
  const rest = markdown.slice(example.index + example[0].length);
  const output = /^```text\n([\s\S]*?)^```$/m.exec(rest);
  if (!output?.[1]) throw new Error("README.md has no ```text block after its first example");
  return { code: example[1].trim(), output: output[1].trimEnd() };
}

describe("README quick start", CPU_HEAVY, () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("is the README's first ts code block, verbatim", async () => {
    const [readme, example] = await Promise.all([
      readPackageFile("../README.md"),
      readPackageFile("../examples/quick-start.ts"),
    ]);
    expect(exampleAndOutput(readme, "ts").code).toBe(quickStartRegion(example));
  });

  it("prints the README's output when run: the child's summary as the tool result, its run, its sequenced chunks", async () => {
    const printed: string[] = [];
    vi.spyOn(console, "log").mockImplementation((...values: unknown[]) => {
      printed.push(values.map(String).join(" "));
    });
    await import(/* @vite-ignore */ QUICK_START); // runs the example: it has top-level code and no main()
    const { output } = exampleAndOutput(await readPackageFile("../README.md"), "ts");
    expect(printed.join("\n")).toBe(output);

    // What the expected output itself says: the child's summary is the tool's result, the run is bound to the tool
    // call, and every chunk frame carries the next sequence of the child's log, from 1, between started and finished.
    expect(printed[1]).toBe('tool result: "Cats sleep 12 to 16 hours a day."');
    expect(printed[2]).toBe("run: agent-tool:call-1 Researcher completed (tool call call-1)");
    const frames = printed[3]?.replace(/^frames: /, "").split(" ") ?? [];
    expect(frames[0]).toBe("started");
    expect(frames.at(-1)).toBe("finished");
    const chunks = frames.slice(1, -1);
    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks).toEqual(chunks.map((_, index) => `chunk#${index + 1}`));
  });
});
