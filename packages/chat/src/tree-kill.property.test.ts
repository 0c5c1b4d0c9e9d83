// Issue 32, as a property: for random trees (how many parallel research calls, with or without the Editor and its
// Writer's approval — approved or denied —, with or without the detached run) stopped after a random durable write,
// the tree recovered by a fresh world equals the same tree run uninterrupted (see tree-kill.test-utils.ts for what
// "equals" holds to: the conversation, every run, each tool and approval once, no completed step again, usage once).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { expectRecovered } from "./tree-kill.test-utils.js";
import { runScenario, type ScenarioOutcome, type TreeScript } from "./tree-scenario.test-utils.js";

const scripts = fc.record({
  research: fc.integer({ min: 0, max: 3 }),
  edit: fc.boolean(),
  background: fc.boolean(),
  approve: fc.boolean(),
});

describe("a random tree stopped after a random write", () => {
  it("recovers to what it does uninterrupted", async () => {
    const references = new Map<string, ScenarioOutcome>();
    const reference = async (script: TreeScript) => {
      const key = JSON.stringify(script);
      const known = references.get(key);
      if (known) return known;
      const outcome = await runScenario(script, null);
      references.set(key, outcome);
      return outcome;
    };
    await fc.assert(
      fc.asyncProperty(
        scripts.filter((script) => script.research + (script.edit ? 1 : 0) > 0),
        fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
        async (script, where) => {
          const uninterrupted = await reference(script);
          const stopAfter = 1 + Math.floor(where * uninterrupted.writes);
          const outcome = await runScenario(script, stopAfter);
          expect(outcome.stopped).toBe(true);
          expectRecovered(outcome, uninterrupted, stopAfter);
        },
      ),
      { numRuns: 24, seed: 32 },
    );
  }, 300_000);
});
