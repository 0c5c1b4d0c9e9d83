import { describe, expect, it } from "vitest";
import type { AgentToolLogEntry } from "../protocol/index.js";
import { InMemoryRunStore } from "../testing/in-memory-run-store.js";
import { flushMicrotasks, ManualClock } from "../testing/manual-clock.js";
import { makeRunRecord } from "../testing/run-store-contract-cases.js";
import { PositionWriter } from "./position-writer.js";

const entry = (sequence: number): AgentToolLogEntry => ({
  sequence,
  body: { type: "text-delta", id: "t", delta: `${sequence}` },
  at: sequence,
});

async function world() {
  const clock = new ManualClock(0);
  const store = new InMemoryRunStore();
  await store.insertRun(makeRunRecord({ runId: "r1", status: "running" }));
  const writer = new PositionWriter({ store, clock, runId: "r1", intervalMs: 500 });
  return { clock, store, writer };
}

describe("PositionWriter: bounded writes of the parent's position in a followed run", () => {
  it("writes the log one interval after the first entry, alone, then at most once per interval, in one batch", async () => {
    const { clock, store, writer } = await world();
    store.resetStats();
    writer.add(entry(1));
    await flushMicrotasks();
    // The first write waits an interval too: a run that ends within it copies its log once, before its terminal.
    expect(await store.readLog("r1")).toEqual([]);
    for (let sequence = 2; sequence <= 40; sequence += 1) writer.add(entry(sequence));
    await clock.advanceBy(499);
    expect(await store.readLog("r1")).toEqual([]);
    await clock.advanceBy(1);
    expect(await store.readLog("r1")).toHaveLength(40);
    // The row's position waits for the next write (a parent re-attaching reads the log past it).
    expect((await store.getRun("r1"))?.lastSequence).toBe(0);
    expect(writer.unwritten).toEqual([]);
    for (let sequence = 41; sequence <= 60; sequence += 1) writer.add(entry(sequence));
    await flushMicrotasks();
    expect(await store.readLog("r1")).toHaveLength(40);
    expect(writer.unwritten.map((item) => item.sequence)).toEqual(Array.from({ length: 20 }, (_, i) => i + 41));
    await clock.advanceBy(500);
    expect((await store.readLog("r1")).map((item) => item.sequence)).toEqual(
      Array.from({ length: 60 }, (_, i) => i + 1),
    );
    expect((await store.getRun("r1"))?.lastSequence).toBe(60);
    expect(writer.unwritten).toEqual([]);
    // Two writes in all (an append; an append and a row update), not sixty.
    expect(store.stats.writes).toBe(3);
  });

  it("adding() decides the write after the whole batch: a write due at once takes all of it", async () => {
    const { clock, store, writer } = await world();
    writer.add(entry(1));
    await clock.advanceBy(500);
    expect(await store.readLog("r1")).toHaveLength(1);
    await clock.advanceBy(500);
    // The interval has passed: the next entries are due at once, and go as one batch.
    writer.adding(() => {
      for (let sequence = 2; sequence <= 5; sequence += 1) writer.add(entry(sequence));
    });
    await flushMicrotasks();
    expect((await store.readLog("r1")).map((item) => item.sequence)).toEqual([1, 2, 3, 4, 5]);
    expect((await store.getRun("r1"))?.lastSequence).toBe(5);
    expect(clock.pendingTimers).toBe(0);
  });

  it("flushLog writes the log now and leaves the position to the terminal write; a waiting durable() gets both", async () => {
    const { store, writer } = await world();
    const before = await store.getRun("r1");
    writer.add(entry(1));
    writer.add(entry(2));
    writer.progress({ fraction: 0.5, at: 7 });
    store.resetStats();
    await writer.flushLog();
    expect((await store.readLog("r1")).map((item) => item.sequence)).toEqual([1, 2]);
    expect(store.stats.writes).toBe(1);
    expect(await store.getRun("r1")).toEqual(before);
    expect(writer.unwritten).toEqual([]);

    writer.add(entry(3));
    const isStored = writer.durable(3);
    await writer.flushLog();
    expect(await isStored).toBe(true);
    expect(await store.getRun("r1")).toMatchObject({ lastSequence: 3, progress: { fraction: 0.5, at: 7 } });
  });

  it("writes the start acknowledgement (beforePosition) before the first write of the position, not with the log alone", async () => {
    const clock = new ManualClock(0);
    const store = new InMemoryRunStore();
    await store.insertRun(makeRunRecord({ runId: "r1", status: "running" }));
    const order: string[] = [];
    const updateRun = store.updateRun.bind(store);
    store.updateRun = (runId, patch, condition) => {
      order.push(`position ${patch.lastSequence}`);
      return updateRun(runId, patch, condition);
    };
    const beforePosition = async () => void order.push("acknowledge");
    const writer = new PositionWriter({ store, clock, runId: "r1", intervalMs: 500, beforePosition });
    writer.add(entry(1));
    await clock.advanceBy(500);
    expect(await store.readLog("r1")).toHaveLength(1);
    expect(order).toEqual([]);
    writer.add(entry(2));
    await clock.advanceBy(500);
    expect(order).toEqual(["acknowledge", "position 2"]);
  });

  it("durable(sequence) writes now, inside the interval, and tells once the entry is stored", async () => {
    const { clock, store, writer } = await world();
    writer.add(entry(1));
    await clock.advanceBy(500);
    writer.add(entry(2));
    writer.add(entry(3));
    await flushMicrotasks();
    expect((await store.readLog("r1")).map((item) => item.sequence)).toEqual([1]); // the interval holds 2 and 3
    expect(await writer.durable(2)).toBe(true);
    expect((await store.getRun("r1"))?.lastSequence).toBe(3);
    expect(await writer.durable(1)).toBe(true);
  });

  it("durable(sequence) tells false when the writer is closed before the entry is stored", async () => {
    const { store, writer } = await world();
    store.appendLog = () => Promise.reject(new Error("storage busy"));
    writer.add(entry(1));
    const isStored = writer.durable(1);
    await flushMicrotasks();
    await writer.close();
    expect(await isStored).toBe(false);
  });

  it("flush writes everything now, with the latest progress", async () => {
    const { store, writer } = await world();
    writer.add(entry(1));
    writer.add(entry(2));
    writer.progress({ fraction: 0.5, at: 7 });
    await writer.flush();
    expect((await store.readLog("r1")).map((item) => item.sequence)).toEqual([1, 2]);
    expect(await store.getRun("r1")).toMatchObject({ lastSequence: 2, progress: { fraction: 0.5, at: 7 } });
  });

  it("keeps what a failed write could not store, and writes it with the next one", async () => {
    const { clock, store, writer } = await world();
    const appendLog = store.appendLog.bind(store);
    let failures = 1;
    store.appendLog = async (runId, entries) => {
      if (failures > 0) {
        failures -= 1;
        throw new Error("storage busy");
      }
      return appendLog(runId, entries);
    };
    writer.add(entry(1));
    await clock.advanceBy(500);
    expect(writer.unwritten).toHaveLength(1);
    writer.add(entry(2));
    await clock.advanceBy(500);
    expect((await store.readLog("r1")).map((item) => item.sequence)).toEqual([1, 2]);
  });

  it("writes nothing more once closed (the run was cleared)", async () => {
    const { clock, store, writer } = await world();
    writer.add(entry(1));
    await clock.advanceBy(500);
    writer.add(entry(2));
    await writer.close();
    writer.add(entry(3));
    await clock.advanceBy(1_000);
    expect((await store.readLog("r1")).map((item) => item.sequence)).toEqual([1]);
  });
});
