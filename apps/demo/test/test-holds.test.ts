import { textDelta as delta } from "@agent-tools/core-runs/testing";
import type { UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { holdAtTextDeltas, holdPointsOf, releaseHold } from "../src/agents/test-holds.js";

// The `DEMO_HOLD_AFTER` test knob (src/agents/test-holds.ts), without a runtime: which turns hold where, and what lets
// them go on. The workerd and browser tests rely on it to keep a run live while they act on it.

const CHUNKS: UIMessageChunk[] = [
  { type: "start" },
  { type: "text-start", id: "t" },
  delta("one "),
  delta("two "),
  delta("three "),
  delta("four"),
  { type: "text-end", id: "t" },
];

async function* chunks(): AsyncGenerator<UIMessageChunk> {
  yield* CHUNKS;
}

/** Pull `turn` in the background; `taken` is what it yielded so far. */
function pull(turn: AsyncGenerator<UIMessageChunk>) {
  const taken: UIMessageChunk[] = [];
  const done = (async () => {
    for await (const chunk of turn) taken.push(chunk);
  })();
  return { taken, done };
}

/** Let every pending promise callback run (the turn is held when nothing more comes after this). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("DEMO_HOLD_AFTER", () => {
  it("names agent types and text-delta counts; unset or naming others, nothing holds", () => {
    const env = { DEMO_HOLD_AFTER: "Researcher:4,2; Importer:3" };
    expect(holdPointsOf(env, "Researcher")).toEqual([2, 4]);
    expect(holdPointsOf(env, "Importer")).toEqual([3]);
    expect(holdPointsOf(env, "Summarizer")).toEqual([]);
    expect(holdPointsOf({}, "Researcher")).toEqual([]);
    expect(holdPointsOf({ DEMO_HOLD_AFTER: "Researcher:0,x" }, "Researcher")).toEqual([]);
  });

  it("holds after each named text delta until the run is released, one release a hold", async () => {
    const run = { runId: "held-run", abortSignal: new AbortController().signal };
    const { taken, done } = pull(holdAtTextDeltas(chunks(), [2, 3], run));
    await settle();
    expect(taken).toEqual(CHUNKS.slice(0, 4));
    releaseHold(run.runId);
    await settle();
    expect(taken).toEqual(CHUNKS.slice(0, 5));
    releaseHold(run.runId);
    await done;
    expect(taken).toEqual(CHUNKS);
  });

  it("counts a release sent before the hold is reached, for that run only", async () => {
    releaseHold("early-run");
    const early = pull(
      holdAtTextDeltas(chunks(), [1], { runId: "early-run", abortSignal: new AbortController().signal }),
    );
    const other = pull(
      holdAtTextDeltas(chunks(), [1], { runId: "other-run", abortSignal: new AbortController().signal }),
    );
    await early.done;
    expect(early.taken).toEqual(CHUNKS);
    await settle();
    expect(other.taken).toEqual(CHUNKS.slice(0, 3));
    releaseHold("other-run");
    await other.done;
  });

  it("goes on once the run is aborted, and a later release is kept for the next hold", async () => {
    const controller = new AbortController();
    const run = { runId: "aborted-run", abortSignal: controller.signal };
    const { taken, done } = pull(holdAtTextDeltas(chunks(), [1], run));
    await settle();
    expect(taken).toEqual(CHUNKS.slice(0, 3));
    controller.abort();
    await done;
    expect(taken).toEqual(CHUNKS);
    // The aborted turn no longer waits: a release now is banked for the run's next hold (a resumed turn's).
    releaseHold(run.runId);
    const resumed = pull(
      holdAtTextDeltas(chunks(), [1], { runId: run.runId, abortSignal: new AbortController().signal }),
    );
    await resumed.done;
    expect(resumed.taken).toEqual(CHUNKS);
  });
});
