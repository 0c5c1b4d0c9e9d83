import { ManualClock } from "@agent-tools/core-runs/testing";
import { describe, expect, it } from "vitest";
import { RequestBudget } from "./request-budget.js";

describe("RequestBudget", () => {
  it("allows a burst, then one request per refill interval, per peer", async () => {
    const clock = new ManualClock(0);
    const budget = new RequestBudget<object>({ clock, burst: 3, refillMs: 100 });
    const one = {};
    const two = {};
    expect([budget.take(one), budget.take(one), budget.take(one), budget.take(one)]).toEqual([true, true, true, false]);
    expect(budget.take(two)).toBe(true);
    await clock.advanceBy(99);
    expect(budget.take(one)).toBe(false);
    await clock.advanceBy(1);
    expect([budget.take(one), budget.take(one)]).toEqual([true, false]);
  });

  it("never holds more than the burst, however long a peer was quiet", async () => {
    const clock = new ManualClock(0);
    const budget = new RequestBudget<object>({ clock, burst: 2, refillMs: 100 });
    const peer = {};
    budget.take(peer);
    await clock.advanceBy(10_000);
    expect([budget.take(peer), budget.take(peer), budget.take(peer)]).toEqual([true, true, false]);
  });
});
