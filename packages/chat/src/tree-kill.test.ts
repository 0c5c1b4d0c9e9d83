// Issue 32, proved at every kill point: a scripted tree — a conversation turn → an Editor child → its Writer grandchild
// (whose save needs approval), parallel research calls, an awaited and a detached agent tool — is stopped right after
// each of its durable writes in turn (nothing of that world happens after it: no write, no effect, no clock tick),
// then a fresh world on the same stores recovers it. Every time, the result equals the uninterrupted run.
import { WorldStop } from "@agent-tools/core-runs/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { expectRecovered, regeneratedTokens } from "./tree-kill.test-utils.js";
import { FULL_SCRIPT, runScenario, type ScenarioOutcome, TreeScenario } from "./tree-scenario.test-utils.js";

let reference: ScenarioOutcome;
/** What the stops cut, over every position: steps done again (their model call cut), calls stopped while they ran. */
const cut = { positions: 0, redoneSteps: 0, toolsRunAgain: 0, tokensAgain: 0 };
/** Writes of the uninterrupted run, in order (each a store method's name). */
let trace: string[];

beforeAll(async () => {
  const scenario = new TreeScenario(FULL_SCRIPT);
  const stop = new WorldStop();
  await scenario.runWorld(stop);
  trace = stop.trace;
  reference = await scenario.outcome(stop.writes, false, null);
}, 60_000);

describe("the scripted tree, uninterrupted", () => {
  it("answers with every call made once, every run completed, the approval asked once and answered once", () => {
    const answer = reference.conversation.at(-1);
    expect(reference.conversation.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(answer?.parts.filter((part) => part.type.startsWith("tool-")).map((part) => part.type)).toEqual([
      "tool-research",
      "tool-research",
      "tool-edit",
      "tool-background",
    ]);
    expect([...reference.runs.values()].map((run) => run.status)).toEqual(Array(5).fill("completed"));
    expect([...reference.counts.executions.values()]).toEqual([1, 1]);
    const writer = [...reference.runs].find(([place]) => place.includes("/Writer/"))?.[1];
    expect(writer?.approvals.map((approval) => approval.status)).toEqual(["pending", "approved"]);
    expect([...(writer?.answers.values() ?? [])]).toEqual([1]);
  });

  it("writes in the same order every time (the kill positions are replayable)", async () => {
    const again = new TreeScenario(FULL_SCRIPT);
    const stop = new WorldStop();
    await again.runWorld(stop);
    expect(stop.trace).toEqual(trace);
  }, 60_000);
});

describe("stopped after each durable write, then recovered by a fresh world on the same stores", () => {
  // Positions in groups, so a failure names where it happened and a slow machine reports progress.
  const GROUP = 20;
  const groups = Array.from({ length: 8 }, (_, index) => index);

  it.each(groups)(
    "positions %i×20+1 … (each equals the uninterrupted run)",
    async (group) => {
      const first = group * GROUP + 1;
      const last = Math.min(trace.length, first + GROUP - 1);
      for (let stopAfter = first; stopAfter <= last; stopAfter += 1) {
        const outcome = await runScenario(FULL_SCRIPT, stopAfter);
        expect(outcome.stopped, `stopped after write ${stopAfter}`).toBe(true);
        const { redoneSteps, toolsRunAgain } = expectRecovered(outcome, reference, stopAfter);
        cut.positions += 1;
        cut.redoneSteps += redoneSteps;
        cut.toolsRunAgain += toolsRunAgain;
        cut.tokensAgain += regeneratedTokens(outcome, reference);
      }
    },
    300_000,
  );

  it("covered every write of the run, cut steps and plain tools while they ran among them", () => {
    expect(trace.length).toBeLessThanOrEqual(groups.length * GROUP);
    expect(cut.positions).toBe(trace.length);
    // The scenario is not too easy: some stops cut a model's step (done again), some a plain tool while it ran.
    expect(cut.redoneSteps).toBeGreaterThan(0);
    expect(cut.toolsRunAgain).toBeGreaterThan(0);
    console.log(
      `stopped at ${cut.positions} writes: ${cut.redoneSteps} cut steps done again, ${cut.toolsRunAgain} plain tools run again, ${cut.tokensAgain} output tokens made again in all`,
    );
  });
});
