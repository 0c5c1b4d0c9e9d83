import { describe, expect, it } from "vitest";
import type { AgentToolEventFrame, AgentToolRunInfo } from "./protocol/index.js";

// The example imports the package by name; vitest.config.ts resolves the name to the sources.

type QuickStartResult = {
  text: string;
  toolOutput: unknown;
  runs: AgentToolRunInfo[];
  frames: AgentToolEventFrame[];
  printed: string[];
};

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

/** The first ```ts code block of a markdown text. */
function firstTsBlock(markdown: string): string {
  const match = /^```ts\n([\s\S]*?)^```$/m.exec(markdown);
  if (!match?.[1]) throw new Error("README.md has no ```ts code block");
  return match[1].trim();
}

describe("README quick start", () => {
  it("runs: the parent's model gets the child's summary, and the registry broadcasts the run", async () => {
    const quickStart = (await import(/* @vite-ignore */ QUICK_START)) as { main(): Promise<QuickStartResult> };
    const result = await quickStart.main();
    expect(result.text).toBe("According to my researcher, cats sleep 12 to 16 hours a day.");
    expect(result.toolOutput).toBe("Cats sleep 12 to 16 hours a day.");
    expect(result.runs).toEqual([
      expect.objectContaining({
        runId: "agent-tool:call-1",
        agentType: "Researcher",
        parentToolCallId: "call-1",
        status: "completed",
        display: { name: "Researcher" },
        inputPreview: '{"topic":"cat sleep"}',
      }),
    ]);
    const kinds = result.frames.map((frame) => frame.event.kind);
    expect(kinds[0]).toBe("started");
    expect(kinds.at(-1)).toBe("finished");
    const chunks = result.frames.filter((frame) => frame.event.kind === "chunk");
    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks.map((frame) => frame.sequence)).toEqual(chunks.map((_, index) => index + 1));
    expect(result.frames.at(-1)?.event).toMatchObject({ summary: "Cats sleep 12 to 16 hours a day." });
    expect(result.printed).toEqual([
      "parent: According to my researcher, cats sleep 12 to 16 hours a day.",
      'tool result: "Cats sleep 12 to 16 hours a day."',
      "runs: agent-tool:call-1 completed",
      `frames: started ${Array(chunks.length).fill("chunk").join(" ")} finished`,
    ]);
  });

  it("is the README's first ts code block, verbatim", async () => {
    const [readme, example] = await Promise.all([
      readPackageFile("../README.md"),
      readPackageFile("../examples/quick-start.ts"),
    ]);
    expect(firstTsBlock(readme)).toBe(quickStartRegion(example));
  });
});
