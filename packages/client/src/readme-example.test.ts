// The README's first example must run as written and print what the README says it prints (the registry's consumer
// test runs it the same way, with `npx tsx`, from the published package).
import { runReadmeExample } from "@agent-tools/core-runs/testing";
import { describe, expect, it } from "vitest";

/**
 * CPU-heavy (it loads the AI SDK and runs the README's example): a time budget of its own. vitest's five-second
 * default is for unit tests, and a busy machine runs this several times slower than an idle one; the budget still ends
 * a test that hangs.
 */
const CPU_HEAVY = { timeout: 60_000 };

describe("README", CPU_HEAVY, () => {
  it("has a first example that runs as written and prints what the README says", async () => {
    // Its first ts/tsx/js/mjs block, saved in the package's dist/ (so that the package resolves by its own name).
    const run = await runReadmeExample({ readme: new URL("../README.md", import.meta.url) });
    const { markdown: readme, output: expected, printed } = run;
    // What Node it needs first, then one `npm i` line and `npm i -D` lines for type packages (the README convention).
    expect(readme).toMatch(
      /^## Install\n\n(?:(?!```)[\s\S])*\bNode 22\b(?:(?!```)[\s\S])*```sh\nnpm i @agent-tools\/client ai@7\n(npm i -D [^\n]+\n)*```$/m,
    );
    expect(printed).toBe(expected);
  });
});
