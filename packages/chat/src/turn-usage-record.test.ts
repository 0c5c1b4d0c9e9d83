import type { AgentToolUsage } from "@agent-tools/core-runs";
import { RunBudget } from "@agent-tools/core-runs/internal";
import { ManualClock } from "@agent-tools/core-runs/testing";
import { describe, expect, it, vi } from "vitest";
import { makeStoredTurn } from "./testing/chat-store-contract-cases.js";
import { InMemoryChatStore } from "./testing/in-memory-chat-store.js";
import { TurnUsageRecord } from "./turn-usage-record.js";

const usage = (runs: number, inputTokens = 0): AgentToolUsage => ({ inputTokens, outputTokens: 0, runs });

/** A stored turn and its usage record; `stored()` reads the usage on its row back. */
async function storedTurn(onError: (error: unknown) => void = (error) => expect.fail(String(error))) {
  const store = new InMemoryChatStore();
  const turn = makeStoredTurn();
  await store.beginTurn(turn);
  const newRecord = () => new TurnUsageRecord({ store, turn, onError });
  const stored = async () => (await store.turns())[0]?.usage;
  return { store, newRecord, record: newRecord(), stored };
}

describe("TurnUsageRecord", () => {
  it("does not write a dispatch alone (a turn of 1 000 agent tool calls): a resumed turn counts its runs from their rows", async () => {
    const { store, newRecord, record, stored } = await storedTurn();
    const updateTurn = vi.spyOn(store, "updateTurn");
    for (let runs = 1; runs <= 1000; runs += 1) record.record(usage(runs));
    await record.close();
    expect(updateTurn).not.toHaveBeenCalled();
    // A model call's usage is written, with the runs counted so far.
    const next = newRecord();
    next.record(usage(1000, 7));
    await next.close();
    expect(updateTurn).toHaveBeenCalledTimes(1);
    expect(await stored()).toEqual(usage(1000, 7));
  });

  it("a turn resumed from that row counts every run it dispatched: their rows give the count", async () => {
    const { record, stored } = await storedTurn();
    record.record(usage(2, 7)); // a model call, after two dispatches
    for (let runs = 3; runs <= 5; runs += 1) record.record(usage(runs, 7)); // three more dispatches, not written
    await record.close();
    const onRow = await stored();
    expect(onRow).toEqual(usage(2, 7));
    // The restart: the budget goes on from the row, then from the five runs' rows (`usageDispatchedBy`).
    const resumed = new RunBudget({ budget: undefined, clock: new ManualClock(0), initial: onRow as AgentToolUsage });
    resumed.restore([], 5);
    expect(resumed.own()).toEqual(usage(5, 7));
    resumed.recordDispatch();
    expect(resumed.total().runs).toBe(6);
  });

  it("writes the latest figure once for a burst of model-call changes, not once per change", async () => {
    const { store, record, stored } = await storedTurn();
    const updateTurn = vi.spyOn(store, "updateTurn");
    for (let tokens = 1; tokens <= 100; tokens += 1) record.record(usage(0, tokens));
    await record.close();
    expect(updateTurn).toHaveBeenCalledTimes(1);
    expect(await stored()).toEqual(usage(0, 100));
  });

  it("writes in order: a change while a write is under way is written after it, the last one last", async () => {
    const { store, record, stored } = await storedTurn();
    const written: AgentToolUsage[] = [];
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started = () => {};
    const firstStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    const updateTurn = store.updateTurn.bind(store);
    vi.spyOn(store, "updateTurn").mockImplementation(async (turn) => {
      written.push(turn.usage as AgentToolUsage);
      if (written.length === 1) {
        started();
        await held;
      }
      await updateTurn(turn);
    });
    record.record(usage(1, 1));
    await firstStarted;
    record.record(usage(2, 2));
    record.record(usage(3, 5));
    record.record(usage(4, 5)); // only a dispatch more: nothing more to write
    release();
    await record.close();
    expect(written).toEqual([usage(1, 1), usage(3, 5)]);
    expect(await stored()).toEqual(usage(3, 5));
    record.record(usage(4, 9)); // closed: the turn's end deleted its row, nothing may bring it back
    await record.close();
    expect(written).toHaveLength(2);
  });

  it("reports a failed write and goes on with the next figure", async () => {
    const errors: unknown[] = [];
    const { store, newRecord, record, stored } = await storedTurn((error) => errors.push(error));
    store.failNext("updateTurn");
    record.record(usage(1, 1));
    await record.close();
    expect(errors).toHaveLength(1);
    const again = newRecord();
    again.record(usage(2, 2));
    await again.close();
    expect(await stored()).toEqual(usage(2, 2));
  });
});
