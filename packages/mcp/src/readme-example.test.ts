import { runReadmeExample } from "@agent-tools/core-runs/testing";
import { describe, expect, it } from "vitest";

// The README's first example, as a consumer runs it: examples/readme.ts holds it verbatim, and running it prints the
// README's ```text block. (The consumer test runs the same block from the published packages: docs/releasing.md.)

describe("README example", () => {
  it("is examples/readme.ts verbatim, and prints the README's output", async () => {
    const { code, source, output, printed } = await runReadmeExample({
      readme: new URL("../README.md", import.meta.url),
      module: new URL("../examples/readme.ts", import.meta.url),
    });
    expect(code).toBe(source);
    expect(printed).toBe(output);
  });
});
