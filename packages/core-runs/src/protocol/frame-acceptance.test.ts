import { describe, expect, it } from "vitest";
import { acceptedFrameIndexes, adversarialRunFrames } from "../testing/adversarial-frames.js";
import { type AgentToolFrameCursor, acceptAgentToolFrame, NO_FRAMES_ACCEPTED } from "./frame-acceptance.js";
import type { AgentToolEventFrame } from "./frames.js";

const RUN = "r1";
const TYPE = "agent-tool-event" as const;
const chunk = (sequence: number | undefined, body: unknown): AgentToolEventFrame => ({
  type: TYPE,
  ...(sequence === undefined ? {} : { sequence }),
  event: { kind: "chunk", runId: RUN, body: body as never },
});
const text = (sequence: number) => chunk(sequence, { type: "text-delta", id: "t", delta: String(sequence) });
const lifecycle = (event: AgentToolEventFrame["event"], revision?: number): AgentToolEventFrame => ({
  type: TYPE,
  ...(revision === undefined ? {} : { revision }),
  event,
});
const started = { kind: "started", runId: RUN, agentType: "A", displayOrder: 0 } as const;
const finished = { kind: "finished", runId: RUN, summary: "s" } as const;
const interrupted = { kind: "interrupted", runId: RUN, error: "cut" } as const;

/** Feed frames in order; the cursor and whether each was accepted. */
function feed(frames: readonly AgentToolEventFrame[], from: AgentToolFrameCursor = NO_FRAMES_ACCEPTED) {
  let cursor = from;
  const accepted = frames.map((frame) => {
    const result = acceptAgentToolFrame(cursor, frame);
    cursor = result.cursor;
    return result.accepted;
  });
  return { cursor, accepted };
}

describe("acceptAgentToolFrame: durable chunks", () => {
  it("accepts each sequence once, holds the ones past a gap and moves on when it is filled", () => {
    const { cursor, accepted } = feed([text(1), text(1), text(3), text(3), text(2)]);
    expect(accepted).toEqual([true, false, true, false, true]);
    expect(cursor).toMatchObject({ contiguous: 3, ahead: [] });
    expect(feed([text(1), text(4), text(3)]).cursor).toMatchObject({ contiguous: 1, ahead: [3, 4] });
  });

  it("accepts a chunk without a sequence (ephemeral) every time, changing nothing", () => {
    const progress = chunk(undefined, { type: "data-agent-progress", data: { at: 1 }, transient: true });
    const result = acceptAgentToolFrame(NO_FRAMES_ACCEPTED, progress);
    expect(result).toEqual({ accepted: true, cursor: NO_FRAMES_ACCEPTED, voids: [] });
  });

  it("a step reset voids its ranges: the cursor moves past them, their late copies are refused", () => {
    const reset = chunk(4, { type: "data-agent-step-reset", data: { fromSequence: 2 }, transient: true });
    const first = feed([text(1), text(2)]).cursor;
    const result = acceptAgentToolFrame(first, reset);
    expect(result.accepted).toBe(true);
    expect(result.voids).toEqual([[2, 4]]);
    expect(result.cursor).toMatchObject({ contiguous: 4, ahead: [] });
    expect(acceptAgentToolFrame(result.cursor, text(3)).accepted).toBe(false);
  });

  it("a milestone in a voided range is accepted once (milestones stay reached)", () => {
    const milestone = chunk(2, { type: "data-agent-milestone", data: { milestone: "m", at: 1 } });
    const reset = chunk(
      3,
      JSON.stringify({ type: "data-agent-step-reset", data: { fromSequence: 2 }, transient: true }),
    );
    expect(feed([text(1), reset, milestone, milestone]).accepted).toEqual([true, true, true, false]);
    // One held before the reset is not accepted again after it.
    expect(feed([text(1), milestone, reset, milestone]).accepted).toEqual([true, true, true, false]);
  });
});

describe("acceptAgentToolFrame: lifecycle", () => {
  it("applies a revision only when it is newer, with the status of its kind", () => {
    const { cursor, accepted } = feed([
      lifecycle(started, 1),
      lifecycle(interrupted, 2),
      lifecycle(started, 1),
      lifecycle(finished, 3),
      lifecycle(interrupted, 2),
    ]);
    expect(accepted).toEqual([true, true, false, true, false]);
    expect(cursor).toMatchObject({ revision: 3, status: "completed" });
  });

  it("without a revision: a started only first, a terminal unless the run is hard terminal", () => {
    expect(feed([lifecycle(started)]).cursor).toMatchObject({ revision: 0, status: "running" });
    expect(feed([lifecycle(started), lifecycle(started)]).accepted).toEqual([true, false]);
    expect(feed([lifecycle(finished, 2), lifecycle(started)]).accepted).toEqual([true, false]);
    expect(feed([lifecycle(interrupted), lifecycle(finished)]).cursor).toMatchObject({ status: "completed" });
    expect(feed([lifecycle(finished), lifecycle(interrupted)]).accepted).toEqual([true, false]);
  });

  it("returns the same cursor when an accepted frame changes nothing, and accepts cleared", () => {
    const cut = feed([lifecycle(interrupted)]).cursor;
    expect(acceptAgentToolFrame(cut, lifecycle(interrupted))).toEqual({ accepted: true, cursor: cut, voids: [] });
    const cleared = acceptAgentToolFrame(cut, { type: TYPE, event: { kind: "cleared", runIds: [RUN] } });
    expect(cleared).toEqual({ accepted: true, cursor: cut, voids: [] });
  });
});

describe("the adversarial frames of the testing kit", () => {
  it("are accepted as the protocol says: the duplicates, the voided copy and the stale frames refused", () => {
    const frames = adversarialRunFrames();
    // Refused: 3 (duplicate), 8 (voided), 12 (milestone again), 13 (stale started), 15 (stale), 16 (no revision).
    expect(acceptedFrameIndexes(frames)).toEqual([0, 1, 2, 4, 5, 6, 7, 9, 10, 11, 14]);
  });
});
