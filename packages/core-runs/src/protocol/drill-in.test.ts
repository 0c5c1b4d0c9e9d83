import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type AgentToolChildChunkFrame,
  type AgentToolChildMessagesFrame,
  type AgentToolDrillInFrame,
  encodeAgentToolDrillInFrame,
  parseAgentToolDrillInFrame,
  readUIMessageChunkBody,
} from "./drill-in.js";
import type { AgentToolRunInspection } from "./run-types.js";

const inspection: AgentToolRunInspection = {
  runId: "r1",
  status: "running",
  milestones: [{ sequence: 2, name: "fetched", at: 1_050 }],
  lastSequence: 3,
  startedAt: 1_000,
  progress: { fraction: 0.5, message: "half", at: 1_060 },
};

const messagesFrame: AgentToolChildMessagesFrame = {
  type: "child-messages",
  runId: "r1",
  messages: [
    { id: "agent-tool-r1-input", role: "user", parts: [{ type: "text", text: '{"topic":"cats"}' }] },
    { id: "agent-tool-r1-output", role: "assistant", parts: [{ type: "text", text: "Cats", state: "streaming" }] },
  ],
  run: inspection,
};

const chunkFrames: AgentToolChildChunkFrame[] = [
  {
    type: "child-chunk",
    runId: "r1",
    item: {
      type: "entries",
      entries: [
        { sequence: 4, body: { type: "text-delta", id: "t", delta: " sleep." }, at: 1_070 },
        { sequence: 5, body: { type: "text-end", id: "t" }, at: 1_071 },
      ],
    },
  },
  {
    type: "child-chunk",
    runId: "r1",
    item: {
      type: "progress",
      body: { type: "data-agent-progress", data: { fraction: 0.9 }, transient: true },
      at: 2,
      catchUp: true,
    },
  },
  {
    type: "child-chunk",
    runId: "r1",
    item: {
      type: "terminal",
      inspection: { ...inspection, status: "completed", summary: "done", lastSequence: 5, completedAt: 1_100 },
    },
  },
];

function expectFailure(input: unknown): string {
  const result = parseAgentToolDrillInFrame(input);
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.frame)}`);
  expect(result.error.length).toBeGreaterThan(0);
  return result.error;
}

describe("parseAgentToolDrillInFrame", () => {
  it("round-trips every frame the child sends, as JSON text or as a parsed value", () => {
    const frames: AgentToolDrillInFrame[] = [messagesFrame, ...chunkFrames, { ...messagesFrame, run: null }];
    for (const frame of frames) {
      expect(parseAgentToolDrillInFrame(encodeAgentToolDrillInFrame(frame))).toEqual({ ok: true, frame });
      expect(parseAgentToolDrillInFrame(JSON.parse(JSON.stringify(frame)))).toEqual({ ok: true, frame });
    }
  });

  it("decodes a chunk body given as JSON text (the seed system's form)", () => {
    expect(readUIMessageChunkBody('{"type":"start"}')).toEqual({ type: "start" });
    expect(readUIMessageChunkBody({ type: "start" })).toEqual({ type: "start" });
    for (const junk of ["{", "[1]", '"start"', { type: 1 }, null, ["start"]])
      expect(readUIMessageChunkBody(junk)).toBeNull();
    const raw = {
      type: "child-chunk",
      runId: "r1",
      item: { type: "entries", entries: [{ sequence: 1, body: '{"type":"text-start","id":"t"}', at: 5 }] },
    };
    expect(parseAgentToolDrillInFrame(JSON.stringify(raw))).toEqual({
      ok: true,
      frame: {
        ...raw,
        item: { type: "entries", entries: [{ sequence: 1, body: { type: "text-start", id: "t" }, at: 5 }] },
      },
    });
  });

  it("drops the malformed pieces of a well-formed frame and keeps the rest", () => {
    const result = parseAgentToolDrillInFrame({
      ...messagesFrame,
      messages: [
        { id: "m1", role: "user", parts: [{ type: "text", text: "kept" }, { text: "no type" }, null] },
        { id: "m2", role: "robot", parts: [] },
        "not a message",
      ],
      run: { ...inspection, milestones: [{ sequence: 0, name: "bad", at: 1 }, ...inspection.milestones], summary: 7 },
    });
    expect(result).toEqual({
      ok: true,
      frame: {
        ...messagesFrame,
        messages: [{ id: "m1", role: "user", parts: [{ type: "text", text: "kept" }] }],
        run: inspection,
      },
    });
    const batch = parseAgentToolDrillInFrame({
      type: "child-chunk",
      runId: "r1",
      item: {
        type: "entries",
        entries: [
          { sequence: 1, body: { type: "start" }, at: 1 },
          { sequence: "2", body: { type: "start-step" }, at: 1 },
          { sequence: 3, body: "not json", at: 1 },
          { sequence: 4, body: { type: "text-start", id: "t" }, at: 1 },
        ],
      },
    });
    expect(batch.ok && batch.frame.type === "child-chunk" && batch.frame.item).toEqual({
      type: "entries",
      entries: [
        { sequence: 1, body: { type: "start" }, at: 1 },
        { sequence: 4, body: { type: "text-start", id: "t" }, at: 1 },
      ],
    });
  });

  it("refuses what is not a drill-in frame, saying why", () => {
    expect(expectFailure("{")).toMatch(/JSON/);
    expect(expectFailure(null)).toMatch(/object/);
    expect(expectFailure({ type: "agent-tool-event", runId: "r1" })).toMatch(/frame type/);
    expect(expectFailure({ ...messagesFrame, runId: "" })).toMatch(/runId/);
    expect(expectFailure({ ...messagesFrame, messages: "none" })).toMatch(/messages/);
    expect(expectFailure({ ...messagesFrame, run: { ...inspection, runId: "other" } })).toMatch(/runId/);
    expect(expectFailure({ ...messagesFrame, run: { ...inspection, status: "interrupted" } })).toMatch(/status/);
    expect(expectFailure({ ...messagesFrame, run: { ...inspection, lastSequence: -1 } })).toMatch(/lastSequence/);
    expect(expectFailure({ type: "child-chunk", runId: "r1", item: { type: "entries", entries: [] } })).toMatch(
      /no well-formed entry/,
    );
    expect(expectFailure({ type: "child-chunk", runId: "r1", item: { type: "progress", body: {}, at: 1 } })).toMatch(
      /progress/,
    );
    expect(expectFailure({ type: "child-chunk", runId: "r1", item: { type: "terminal", inspection: 1 } })).toMatch(
      /^inspection/,
    );
    expect(expectFailure({ type: "child-chunk", runId: "r1", item: { type: "rewind" } })).toMatch(/item.type/);
    const throwing = new Proxy(
      {},
      {
        get() {
          throw new Error("boom");
        },
      },
    );
    expect(expectFailure(throwing)).toMatch(/could not be read/);
  });

  it("never throws, and whatever it accepts survives a round trip (property)", () => {
    const nearFrame = fc.record({
      type: fc.constantFrom("child-messages", "child-chunk", "other"),
      runId: fc.oneof(fc.constant("r1"), fc.anything()),
      messages: fc.oneof(fc.constant(messagesFrame.messages), fc.anything()),
      run: fc.oneof(fc.constant(inspection), fc.constant(null), fc.anything()),
      item: fc.oneof(fc.constantFrom(...chunkFrames.map((frame) => frame.item)), fc.anything()),
    });
    fc.assert(
      fc.property(
        fc.oneof(
          nearFrame,
          fc.anything(),
          fc.jsonValue().map((value) => JSON.stringify(value)),
        ),
        (input) => {
          const result = parseAgentToolDrillInFrame(input);
          if (!result.ok) return;
          expect(parseAgentToolDrillInFrame(encodeAgentToolDrillInFrame(result.frame))).toEqual(result);
        },
      ),
      { numRuns: 500, seed: 18 },
    );
  });
});
