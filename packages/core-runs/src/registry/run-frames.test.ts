import { describe, expect, it } from "vitest";
import { entryFrame, startedFrame, terminalFrame } from "./run-frames.js";
import type { RunRecord } from "./run-record.js";

const row = (fields: Partial<RunRecord>): RunRecord => ({
  runId: "r1",
  agentType: "Echo",
  status: "running",
  revision: 3,
  startedAt: 1,
  updatedAt: 2,
  displayOrder: 0,
  lastSequence: 0,
  ...fields,
});

describe("terminalFrame", () => {
  it("sends only what the row knows of an interrupted run: no invented reason or childStillRunning", () => {
    const frame = terminalFrame(row({ status: "interrupted", error: "stopped", completedAt: 5 }));
    expect(frame?.event).toEqual({ kind: "interrupted", runId: "r1", error: "stopped", completedAt: 5 });
  });

  it("carries reason and childStillRunning when the row has them", () => {
    const frame = terminalFrame(
      row({ status: "interrupted", error: "e", reason: "no-progress", childStillRunning: true, completedAt: 5 }),
    );
    expect(frame).toMatchObject({
      revision: 3,
      event: { kind: "interrupted", reason: "no-progress", childStillRunning: true, completedAt: 5 },
    });
  });
});

describe("startedFrame", () => {
  it("says a run was dispatched in the background (live and replayed), and says nothing for an awaited run", () => {
    expect(startedFrame(row({ detached: true })).event).toMatchObject({ kind: "started", detached: true });
    expect(startedFrame(row({ detached: true }), true)).toMatchObject({ replay: true, event: { detached: true } });
    expect("detached" in startedFrame(row({})).event).toBe(false);
    expect("detached" in startedFrame(row({ detached: false })).event).toBe(false);
  });
});

describe("entryFrame", () => {
  const entry = { sequence: 7, body: { type: "text-delta", id: "t0", delta: "hi" } as const, at: 1 };

  it("writes a chunk's frame with the fields in the wire's order, a parent's call and replay only when there", () => {
    const chunk = '"event":{"kind":"chunk","runId":"r1","body":{"type":"text-delta","id":"t0","delta":"hi"}}';
    expect(JSON.stringify(entryFrame(row({}), entry))).toBe(`{"type":"agent-tool-event","sequence":7,${chunk}}`);
    expect(JSON.stringify(entryFrame(row({}), entry, true))).toBe(
      `{"type":"agent-tool-event","sequence":7,"replay":true,${chunk}}`,
    );
    expect(JSON.stringify(entryFrame(row({ parentToolCallId: "c1" }), entry))).toBe(
      `{"type":"agent-tool-event","parentToolCallId":"c1","sequence":7,${chunk}}`,
    );
    expect(JSON.stringify(entryFrame(row({ parentToolCallId: "c1" }), entry, true))).toBe(
      `{"type":"agent-tool-event","parentToolCallId":"c1","sequence":7,"replay":true,${chunk}}`,
    );
    expect(entryFrame(row({}), entry, false)).not.toHaveProperty("replay");
    expect(entryFrame(row({}), entry)).not.toHaveProperty("parentToolCallId");
  });
});
