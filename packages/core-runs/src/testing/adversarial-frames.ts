import type { UIMessageChunk } from "ai";
import { type AgentToolEventFrame, acceptAgentToolFrame, NO_FRAMES_ACCEPTED } from "../protocol/index.js";

const TYPE = "agent-tool-event" as const;

/**
 * One run's frames as a reader may get them in a replay/live race, to check that a reader of the wire applies the
 * protocol's rule (`acceptAgentToolFrame`): a duplicate, a gap filled late, a step reset voiding a sequence never
 * received and its late copy, a milestone in a voided range (late, then again), a stale `started`, a stale terminal
 * and a terminal without a revision after a hard terminal. Every text delta ends a line, and every chunk is durable.
 * @experimental
 */
export function adversarialRunFrames(runId = "run-adversarial"): AgentToolEventFrame[] {
  const chunk = (sequence: number, body: Record<string, unknown>): AgentToolEventFrame => ({
    type: TYPE,
    sequence,
    event: { kind: "chunk", runId, body: body as UIMessageChunk },
  });
  const delta = (sequence: number, text: string) =>
    chunk(sequence, { type: "text-delta", id: "t1", delta: `${text}\n` });
  const milestone = (sequence: number, name: string) =>
    chunk(sequence, { type: "data-agent-milestone", data: { milestone: name, at: 1000 + sequence } });
  const reset = (sequence: number, from: number, until: number) =>
    chunk(sequence, {
      type: "data-agent-step-reset",
      data: { fromSequence: from, voids: [[from, until]] },
      transient: true,
    });
  const started: AgentToolEventFrame = {
    type: TYPE,
    revision: 1,
    event: { kind: "started", runId, agentType: "Researcher", displayOrder: 0 },
  };
  return [
    started,
    chunk(1, { type: "text-start", id: "t1" }),
    delta(2, "alpha"),
    delta(2, "alpha"), // a duplicate
    delta(4, "gamma"), // past a gap
    delta(3, "beta"), // the gap, filled late
    milestone(5, "halfway"),
    reset(7, 6, 7), // voids 6, never received
    delta(6, "voided"), // its late copy
    delta(8, "delta"),
    reset(10, 9, 10), // voids 9 ...
    milestone(9, "reached"), // ... a milestone, which stays reached
    milestone(9, "reached"), // once
    started, // stale
    { type: TYPE, revision: 3, event: { kind: "finished", runId, summary: "done" } },
    { type: TYPE, revision: 2, event: { kind: "interrupted", runId, error: "late", reason: "no-progress" } }, // stale
    { type: TYPE, event: { kind: "error", runId, error: "after a hard terminal" } }, // no revision
  ];
}

/** The indexes of the frames `acceptAgentToolFrame` accepts, fed in order to one cursor (one run). @experimental */
export function acceptedFrameIndexes(frames: readonly AgentToolEventFrame[]): number[] {
  let cursor = NO_FRAMES_ACCEPTED;
  const accepted: number[] = [];
  frames.forEach((frame, index) => {
    const result = acceptAgentToolFrame(cursor, frame);
    cursor = result.cursor;
    if (result.accepted) accepted.push(index);
  });
  return accepted;
}
