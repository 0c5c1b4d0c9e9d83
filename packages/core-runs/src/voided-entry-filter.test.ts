import type { UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { type AgentToolLogEntry, stepResetChunk } from "./protocol/index.js";
import { textDelta as delta } from "./testing/chunks.js";
import { omitVoidedEntries, VoidedEntryFilter } from "./voided-entry-filter.js";

const log = (...bodies: UIMessageChunk[]): AgentToolLogEntry[] =>
  bodies.map((body, index) => ({ sequence: index + 1, body, at: 0 }));
const milestone = { type: "data-agent-milestone", data: { milestone: "m" } } as UIMessageChunk;
const sequences = (entries: readonly AgentToolLogEntry[]) => entries.map((entry) => entry.sequence);

describe("omitVoidedEntries", () => {
  const entries = log(
    { type: "start-step" }, // 1
    delta("a"), // 2
    { type: "finish-step" }, // 3
    { type: "start-step" }, // 4: the cut step
    delta("b"), // 5
    milestone, // 6: stays
    delta("c"), // 7
    stepResetChunk(4), // 8
    { type: "start-step" }, // 9: the cut step again, cut again
    delta("b"), // 10
    stepResetChunk(9), // 11
    { type: "start-step" }, // 12
    delta("bc"), // 13
    { type: "finish-step" }, // 14
  );

  it("leaves out every entry a reset voids, keeping milestones and the resets", () => {
    expect(sequences(omitVoidedEntries(entries))).toEqual([1, 2, 3, 6, 8, 11, 12, 13, 14]);
  });

  it("gives the same entries page by page, whatever the page size", () => {
    for (let size = 1; size <= entries.length; size++) {
      const filter = new VoidedEntryFilter();
      const kept: AgentToolLogEntry[] = [];
      for (let start = 0; start < entries.length; start += size)
        kept.push(...filter.push(entries.slice(start, start + size)));
      kept.push(...filter.flush());
      expect(sequences(kept), `pages of ${size}`).toEqual([1, 2, 3, 6, 8, 11, 12, 13, 14]);
    }
  });

  it("holds back only what a reset may still void: the entries after the last finish-step", () => {
    const filter = new VoidedEntryFilter();
    expect(sequences(filter.push(entries.slice(0, 5)))).toEqual([1, 2, 3]);
    expect(sequences(filter.flush())).toEqual([4, 5]);
  });

  it("voids from the reset's sequence on even when the reader starts inside the cut step", () => {
    expect(sequences(omitVoidedEntries(entries.slice(4)))).toEqual([6, 8, 11, 12, 13, 14]);
  });

  it("treats a malformed reset as an ordinary entry: it voids nothing", () => {
    const malformed = { type: "data-agent-step-reset", data: { fromSequence: "4" }, transient: true } as UIMessageChunk;
    const withMalformed = log({ type: "start-step" }, delta("a"), malformed);
    expect(sequences(omitVoidedEntries(withMalformed))).toEqual([1, 2, 3]);
  });
});
