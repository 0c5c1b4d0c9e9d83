import type { AgentToolDrillInFrame, AgentToolLogEntry, AgentToolRunInspection } from "@agent-tools/core-runs/protocol";
import type { UIMessage, UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { assembleUIMessageParts } from "./apply-ui-message-chunk.js";
import {
  type AgentToolDrillInState,
  applyAgentToolDrillInFrame,
  createAgentToolDrillInState,
} from "./drill-in-state.js";
import { randomInt, seededRandom, shuffled, textChunks, toolChunks } from "./test-support.test-utils.js";

const input: UIMessage = {
  id: "agent-tool-r1-input",
  role: "user",
  parts: [{ type: "text", text: '{"topic":"cats"}' }],
};
const log: UIMessageChunk[] = [
  { type: "start" },
  { type: "start-step" },
  ...toolChunks({ toolCallId: "k1", toolName: "lookup", input: { q: "cats" }, output: { hours: 16 } }),
  { type: "data-agent-milestone", data: { milestone: "looked up", at: 1_030 } },
  ...textChunks("t1", "Cats sleep twelve to sixteen hours a day."),
  { type: "finish-step" },
  { type: "finish" },
];
const entries: AgentToolLogEntry[] = log.map((body, index) => ({ sequence: index + 1, body, at: 1_000 + index }));

const inspection = (lastSequence: number, extra: Partial<AgentToolRunInspection> = {}): AgentToolRunInspection => ({
  runId: "r1",
  status: "running",
  milestones: [],
  lastSequence,
  startedAt: 1_000,
  ...extra,
});

/** What the child sends on open when its log holds the first `held` entries. */
function loaded(held: number): AgentToolDrillInFrame {
  const parts = assembleUIMessageParts(log.slice(0, held));
  const messages: UIMessage[] =
    held === 0 ? [input] : [input, { id: "agent-tool-r1-output", role: "assistant", parts }];
  return { type: "child-messages", runId: "r1", messages, run: inspection(held) };
}
const batch = (from: number, to: number): AgentToolDrillInFrame => ({
  type: "child-chunk",
  runId: "r1",
  item: { type: "entries", entries: entries.slice(from, to) },
});
const reduce = (frames: readonly AgentToolDrillInFrame[], state = createAgentToolDrillInState("r1")) =>
  frames.reduce<AgentToolDrillInState>(applyAgentToolDrillInFrame, state);

const wholeAnswer = (): UIMessage[] => [
  input,
  { id: "agent-tool-r1-output", role: "assistant", parts: assembleUIMessageParts(log) },
];

describe("applyAgentToolDrillInFrame", () => {
  it("shows the child's messages, then goes on with its log: the same as assembling the whole log", () => {
    const state = reduce([loaded(0), batch(0, 4), batch(4, log.length)]);
    expect(state.messages).toEqual(wholeAnswer());
    expect(state).toMatchObject({ isLoaded: true, isComplete: false, lastSequence: log.length });
  });

  it("goes on from a snapshot taken anywhere, mid-text and mid-tool-input included", () => {
    for (let held = 0; held <= log.length; held++) {
      const state = reduce([loaded(held), batch(held, log.length)]);
      expect({ held, messages: state.messages }).toEqual({ held, messages: wholeAnswer() });
    }
  });

  it("applies each entry once, in sequence order, holding entries past a gap until it closes", () => {
    const random = seededRandom(18);
    for (let round = 0; round < 50; round++) {
      const held = randomInt(random, log.length);
      // Single-entry batches, shuffled, some twice, some already in the snapshot.
      const rest = entries.slice(Math.max(0, held - 2)).map(
        (entry): AgentToolDrillInFrame => ({
          type: "child-chunk",
          runId: "r1",
          item: { type: "entries", entries: [entry] },
        }),
      );
      const frames = shuffled([...rest, ...rest.filter(() => random() < 0.3)], random);
      expect(reduce([loaded(held), ...frames]).messages).toEqual(wholeAnswer());
    }
  });

  it("returns the same state for a duplicate, a frame of another run, and chunks before the messages", () => {
    const state = reduce([loaded(3), batch(3, 6)]);
    expect(applyAgentToolDrillInFrame(state, batch(2, 6))).toBe(state);
    expect(applyAgentToolDrillInFrame(state, { ...batch(6, 8), runId: "r2" })).toBe(state);
    const empty = createAgentToolDrillInState("r1");
    expect(applyAgentToolDrillInFrame(empty, batch(0, 3))).toBe(empty);
  });

  it("starts over from the messages a reopened socket sends", () => {
    const before = reduce([loaded(2), batch(2, 9)]);
    const after = reduce([loaded(9), batch(9, log.length)], before);
    expect(after.messages).toEqual(wholeAnswer());
    expect(after.lastSequence).toBe(log.length);
  });

  it("keeps the newest progress and completes on the terminal inspection", () => {
    const progress = (fraction: number, at: number): AgentToolDrillInFrame => ({
      type: "child-chunk",
      runId: "r1",
      item: { type: "progress", body: { type: "data-agent-progress", data: { fraction, at } }, at },
    });
    let state = reduce([loaded(0), progress(0.2, 2_000), progress(0.1, 1_500)]);
    expect(state.progress).toEqual({ fraction: 0.2, at: 2_000 });
    state = reduce([batch(0, log.length)], state);
    expect(state.progress).toEqual({ fraction: 0.2, at: 2_000 }); // the milestone (at 1030) is older
    const done = inspection(log.length, { status: "completed", summary: "done", completedAt: 3_000 });
    state = reduce([{ type: "child-chunk", runId: "r1", item: { type: "terminal", inspection: done } }], state);
    expect(state).toMatchObject({ isComplete: true, run: done });
    expect(state.messages).toEqual(wholeAnswer());
  });

  it("loads a finished run as complete, and an unknown one as empty", () => {
    const done: AgentToolDrillInFrame = {
      type: "child-messages",
      runId: "r1",
      messages: wholeAnswer(),
      run: inspection(log.length, { status: "error", error: "boom" }),
    };
    expect(reduce([done])).toMatchObject({ isComplete: true, messages: wholeAnswer() });
    expect(reduce([{ type: "child-messages", runId: "r1", messages: [], run: null }])).toMatchObject({
      isLoaded: true,
      isComplete: false,
      messages: [],
    });
  });

  it("drops what a step reset voids of the entries it applied, and goes past the voided ones it never got", () => {
    const stepOne = log.slice(0, 7); // the log's first seven chunks (sequences 1–7); the cut entries are 8 and 9
    const cut: UIMessageChunk[] = [
      { type: "text-start", id: "t1" },
      { type: "text-delta", id: "t1", delta: "Cats" },
    ];
    const reset = { type: "data-agent-step-reset", data: { fromSequence: 8 }, transient: true } as UIMessageChunk;
    const redo = log.slice(7);
    const all = [...stepOne, ...cut, reset, ...redo].map(
      (body, index): AgentToolLogEntry => ({ sequence: index + 1, body, at: 1_000 + index }),
    );
    const frame = (from: number, to: number): AgentToolDrillInFrame => ({
      type: "child-chunk",
      runId: "r1",
      item: { type: "entries", entries: all.slice(from, to) },
    });
    // Live through the cut: the partial text came, then the reset took it back.
    expect(reduce([loaded(0), frame(0, all.length)]).messages).toEqual(wholeAnswer());
    expect(reduce([loaded(0), frame(0, 8), frame(8, all.length)]).messages).toEqual(wholeAnswer());
    // A tail that left the voided entries out: the reset closes the gap they leave.
    const withoutVoided = [...all.slice(0, 7), ...all.slice(9)];
    const state = reduce([
      loaded(0),
      { type: "child-chunk", runId: "r1", item: { type: "entries", entries: withoutVoided } },
    ]);
    expect(state.messages).toEqual(wholeAnswer());
    expect(state.lastSequence).toBe(all.length);
  });
});
