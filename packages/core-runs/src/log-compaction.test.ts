import type { UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { compactRunLog, compactStoredLog, entriesForReader } from "./log-compaction.js";
import { type AgentToolLogEntry, stepResetChunk } from "./protocol/index.js";
import { textDelta as delta } from "./testing/chunks.js";
import { InMemoryRunStore } from "./testing/in-memory-run-store.js";
import { makeRunRecord } from "./testing/run-store-contract-cases.js";

const log = (...bodies: UIMessageChunk[]): AgentToolLogEntry[] =>
  bodies.map((body, index) => ({ sequence: index + 1, body, at: 100 + index }));
const sequences = (entries: readonly AgentToolLogEntry[]) => entries.map((entry) => entry.sequence);

describe("compactRunLog", () => {
  it("makes a text's deltas one delta, after a reset standing for the others", () => {
    const entries = log({ type: "text-start", id: "t" }, delta("a"), delta("bb"), delta("ccc"), {
      type: "text-end",
      id: "t",
    });
    expect(compactRunLog(entries)).toEqual([
      entries[0],
      { sequence: 3, body: stepResetChunk(2), at: 102 },
      { sequence: 4, body: delta("abbccc"), at: 103, merged: { from: 2, last: 3 } },
      entries[4],
    ]);
  });

  it("stores a text that is the run's summary once: replay puts the summary back", () => {
    const entries = log({ type: "text-start", id: "t" }, delta("a"), delta("bb"), delta("ccc"), {
      type: "text-end",
      id: "t",
    });
    const compacted = compactRunLog(entries, { summary: "abbccc" });
    expect(compacted[2]).toEqual({
      sequence: 4,
      body: delta(""),
      at: 103,
      merged: { from: 2, last: 3, summary: true },
    });
    expect(entriesForReader(compacted.slice(1), 1, "abbccc")).toEqual([
      { sequence: 4, body: delta("abbccc"), at: 103, merged: { from: 2, last: 3 } },
      compacted[1],
      entries[4],
    ]);
    // The reader that lacks only the last delta gets the summary's end.
    expect(entriesForReader(compacted.slice(2), 3, "abbccc")[0]?.body).toEqual(delta("ccc"));
    // Another summary, or none: the text stays in the log.
    expect(compactRunLog(entries, { summary: "done" })[2]?.body).toEqual(delta("abbccc"));
    expect(compactRunLog(entries)[2]?.body).toEqual(delta("abbccc"));
  });

  it("keeps short runs, other parts' deltas, deltas of other kinds and the last provider metadata", () => {
    const withMetadata = (text: string, value: number): UIMessageChunk => ({
      type: "reasoning-delta",
      id: "r",
      delta: text,
      providerMetadata: { p: { value } },
    });
    const entries = log(
      delta("x"),
      delta("y"),
      delta("z", "other"),
      withMetadata("1", 1),
      { type: "reasoning-delta", id: "r", delta: "2" },
      withMetadata("3", 3),
      { type: "reasoning-delta", id: "r", delta: "4" },
    );
    const compacted = compactRunLog(entries);
    expect(sequences(compacted)).toEqual([1, 2, 3, 6, 7]);
    expect(compacted.at(-1)?.body).toEqual({ ...withMetadata("1234", 3) });
  });

  it("leaves out what a step reset voids (milestones aside), keeps the reset, and changes nothing a second time", () => {
    const milestone = { type: "data-agent-milestone", data: { milestone: "m", at: 5 } } as UIMessageChunk;
    const entries = log(
      { type: "start-step" },
      delta("cut "),
      milestone,
      delta("off"),
      stepResetChunk(1),
      { type: "start-step" },
      delta("whole"),
      { type: "finish-step" },
    );
    const compacted = compactRunLog(entries);
    expect(sequences(compacted)).toEqual([3, 5, 6, 7, 8]);
    expect(compactRunLog(compacted)).toEqual(compacted);
  });
});

describe("entriesForReader", () => {
  const entries = log({ type: "text-start", id: "t" }, delta("a"), delta("bb"), delta("ccc"), delta("dddd"));
  const compacted = compactRunLog(entries);
  const sentAfter = (sequence: number) =>
    entriesForReader(
      compacted.filter((entry) => entry.sequence > sequence),
      sequence,
    );

  it("sends a region after the reader merged delta first (a cut between them leaves the reader before it)", () => {
    expect(sentAfter(1).map((entry) => entry.body.type)).toEqual(["text-delta", "data-agent-step-reset"]);
  });

  it("sends the reset first to a reader inside it, and only the last delta to one that lacks only it", () => {
    expect(sentAfter(3).map((entry) => entry.body.type)).toEqual(["data-agent-step-reset", "text-delta"]);
    expect(sentAfter(4)).toEqual([{ sequence: 5, body: delta("dddd"), at: 104 }]);
    expect(sentAfter(5)).toEqual([]);
  });

  it("gives a log that was never compacted back as it is", () => {
    const stored = entries.slice(2);
    expect(entriesForReader(stored, 2)).toBe(stored);
  });
});

describe("compactStoredLog", () => {
  /** Word-sized deltas a few milliseconds apart: their lengths and times are most of the encoded log. */
  const words = Array.from({ length: 20 }, (_, index) => ({
    sequence: index + 1,
    body: delta(["ab ", "c ", "def "][index % 3] as string),
    at: 100 + index * 7 + (index % 4),
  }));

  it("compacts only a finished run's non-empty log", async () => {
    const store = new InMemoryRunStore();
    for (const [runId, status] of [
      ["done", "completed"],
      ["live", "running"],
      ["cut", "interrupted"],
      ["empty", "aborted"],
    ] as const) {
      await store.insertRun(makeRunRecord({ runId, status }));
      if (runId !== "empty") await store.appendLog(runId, words);
    }
    expect(await compactStoredLog(store, "done")).toBe(true);
    expect(await compactStoredLog(store, "live")).toBe(false);
    expect(await compactStoredLog(store, "cut")).toBe(false);
    expect(await compactStoredLog(store, "empty")).toBe(false);
    expect(await compactStoredLog(store, "missing")).toBe(false);
    expect((await store.listRuns({ log: "compacted" })).map((run) => run.runId)).toEqual(["done"]);
    expect(sequences(await store.readLog("done"))).toEqual([19, 20]);
  });

  it("marks a log compacted as it is when compacting it would save little", async () => {
    const store = new InMemoryRunStore();
    await store.insertRun(makeRunRecord({ status: "completed" }));
    // Long deltas in the same millisecond: the compact encoding already holds little but their text.
    const long = Array.from({ length: 5 }, (_, index) => ({
      sequence: index + 1,
      body: delta("x".repeat(200)),
      at: 9,
    }));
    await store.appendLog("run-1", long);
    expect(await compactStoredLog(store, "run-1")).toBe(true);
    expect(await store.readLog("run-1")).toEqual(long);
    expect((await store.listRuns({ log: "compacted" })).map((run) => run.runId)).toEqual(["run-1"]);
  });
});
