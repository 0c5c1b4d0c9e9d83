import type { UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import type { AgentToolLogEntry, AgentToolTailItem } from "../protocol/index.js";
import { tailItemFromJson, tailItemToJson } from "./tail-wire.js";

/** What a parent reads from one line: the JSON parsed, then the tail item. */
const overTheWire = (item: AgentToolTailItem): AgentToolTailItem => tailItemFromJson(JSON.parse(tailItemToJson(item)));

/** A burst of the bench's stub child: `count` text deltas of 8 characters, in the same millisecond. */
function burst(count: number, from = 2): AgentToolLogEntry[] {
  return Array.from({ length: count }, (_, index) => ({
    sequence: from + index,
    body: { type: "text-delta", id: "t0", delta: index.toString(36).padStart(8, "0") },
    at: 1_764_000_000_000,
  }));
}

describe("tail items on the wire", () => {
  it("sends a burst's entries encoded once, in the log's compact form, and reads them back equal", () => {
    const item: AgentToolTailItem = { type: "entries", entries: burst(256) };
    const line = tailItemToJson(item);
    expect(overTheWire(item)).toEqual(item);
    // One string for the 256 deltas, no envelope per entry: a tenth of the entries' JSON.
    expect(line).not.toContain('"sequence"');
    expect(line).toContain('"8*256"');
    expect(line.length).toBeLessThan(JSON.stringify(item).length / 8);
    expect(line).not.toContain("\n");
  });

  it("keeps every entry whole: other chunks, envelope fields, gaps, odd times, line breaks and lone surrogates", () => {
    const entries = [
      { sequence: 3, body: { type: "start-step" }, at: 10 },
      { sequence: 4, body: { type: "text-delta", id: "a", delta: "line\nbreak \ud83d" }, at: 10.5 },
      { sequence: 5, body: { type: "text-delta", id: "a", delta: "\ude00" }, at: 11 },
      { sequence: 9, body: { type: "tool-input-available", toolCallId: "c", toolName: "t", input: { q: 1 } }, at: 12 },
      { sequence: 10, body: { type: "text-delta", id: "a", delta: "x" }, at: 13, note: "a field of its own" },
    ] as unknown as AgentToolLogEntry[];
    const item: AgentToolTailItem = { type: "entries", entries };
    const line = tailItemToJson(item);
    expect(line).not.toContain("\n");
    expect(tailItemFromJson(JSON.parse(line))).toEqual(item);
  });

  it("sends the other items as they are", () => {
    const progress: AgentToolTailItem = {
      type: "progress",
      body: { type: "data-agent-progress", data: { fraction: 0.5 }, transient: true } as UIMessageChunk,
      at: 5,
      catchUp: true,
    };
    const terminal = {
      type: "terminal",
      inspection: { runId: "r1", status: "completed", summary: "done", lastSequence: 9 },
    } as unknown as AgentToolTailItem;
    const empty: AgentToolTailItem = { type: "entries", entries: [] };
    for (const item of [progress, terminal, empty]) {
      expect(tailItemToJson(item)).toBe(JSON.stringify(item));
      expect(overTheWire(item)).toEqual(item);
    }
  });

  it("still reads an entries item in the form sent before (whole entries), from a child running older code", () => {
    const item: AgentToolTailItem = { type: "entries", entries: burst(3) };
    expect(tailItemFromJson(JSON.parse(JSON.stringify(item)))).toEqual(item);
  });

  it("rejects an entries item whose log is not one (the reader treats the tail as broken)", () => {
    expect(() => tailItemFromJson({ type: "entries", log: { v: 2 } })).toThrow(RangeError);
    expect(() => tailItemFromJson({ type: "entries", log: "text" })).toThrow(RangeError);
  });
});
