import { ManualClock } from "@agent-tools/core-runs/testing";
import type { UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { InMemoryChatStore } from "./testing/in-memory-chat-store.js";
import { TurnLogWriter } from "./turn-log-writer.js";

const delta = (text: string): UIMessageChunk => ({ type: "text-delta", id: "t", delta: text });

function setUp() {
  const clock = new ManualClock(0);
  const store = new InMemoryChatStore();
  const writer = new TurnLogWriter({ store, clock, turnId: "turn", intervalMs: 250 });
  return { clock, store, writer };
}

describe("TurnLogWriter", () => {
  it("writes the first chunk at once, then at most once per interval", async () => {
    const { clock, store, writer } = setUp();
    writer.add(delta("a"));
    await writer.flush();
    writer.add(delta("b"));
    writer.add(delta("c"));
    expect(store.stats.chunkWrites).toBe(1);
    await clock.advanceBy(250);
    expect(store.stats.chunkWrites).toBe(2);
    expect(await store.turnChunks("turn")).toEqual([delta("a"), delta("b"), delta("c")]);
  });

  it("writes after the chunks a resumed turn kept", async () => {
    const { store, writer } = setUp();
    await store.rewriteTurnChunks("turn", [delta("kept")]);
    writer.skip(1);
    writer.add(delta("new"));
    await writer.flush();
    expect(await store.turnChunks("turn")).toEqual([delta("kept"), delta("new")]);
  });

  it("keeps the first failed write: every later flush rejects with it, and nothing after it is written", async () => {
    const { store, writer } = setUp();
    store.failNext("appendTurnChunks", new Error("disk full"));
    writer.add(delta("a"));
    await expect(writer.flush()).rejects.toThrow("disk full");
    expect(writer.hasFailed).toBe(true);
    writer.add(delta("b"));
    await expect(writer.flush()).rejects.toThrow("disk full");
    expect(await store.turnChunks("turn")).toEqual([]);
  });

  it("never writes a step's finish-step at once: the stream's finish after it, in the same burst, goes with it", async () => {
    const { clock, store, writer } = setUp();
    writer.add({ type: "finish-step" });
    writer.add({ type: "finish" });
    expect(store.stats.chunkWrites).toBe(0);
    await clock.advanceBy(0);
    expect(store.stats.chunkWrites).toBe(1);
    expect(await store.turnChunks("turn")).toEqual([{ type: "finish-step" }, { type: "finish" }]);
  });

  it("writes chunks added together in one write", async () => {
    const { store, writer } = setUp();
    writer.addAll([delta("a"), delta("b")]);
    await writer.flush();
    expect(store.stats.chunkWrites).toBe(1);
  });

  it("dispose drops what is pending and cancels the timer", async () => {
    const { clock, store, writer } = setUp();
    writer.add(delta("a"));
    writer.add(delta("b"));
    await writer.dispose();
    await clock.advanceBy(1_000);
    expect(await store.turnChunks("turn")).toEqual([delta("a")]);
  });
});
