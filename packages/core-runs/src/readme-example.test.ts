import { describe, expect, it } from "vitest";
import { readReadmeExample, runReadmeExample } from "./testing/readme-example.js";

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
const QUICK_START = {
  readme: new URL("../README.md", import.meta.url),
  module: new URL("../examples/quick-start.ts", import.meta.url),
  region: "quick-start",
};

describe("README quick start", CPU_HEAVY, () => {
  it("is the README's first ts code block, verbatim", async () => {
    const { code, source } = await readReadmeExample(QUICK_START);
    expect(code).toBe(source);
  });

  it("prints the README's output when run: the child's summary as the tool result, its run, its sequenced chunks", async () => {
    const run = await runReadmeExample(QUICK_START); // runs the example: it has top-level code and no main()
    const printed = run.printed.split("\n");
    expect(printed.join("\n")).toBe(run.output);

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

describe("README Testing section", () => {
  it("shows the three-level test that src/readme-tree.test.ts runs, verbatim", async () => {
    const { code, source } = await readReadmeExample({
      readme: QUICK_START.readme,
      section: "## Testing",
      module: new URL("./readme-tree.test.ts", import.meta.url),
      region: "three-level-test",
    });
    expect(code).toBe(source);
  });
});
