import { describe, expect, it } from "vitest";
import type { WakeupScheduler } from "../ports/wakeup-scheduler.js";
import { ManualClock } from "./manual-clock.js";
import { ManualWakeupScheduler } from "./manual-wakeup-scheduler.js";

describe("ManualWakeupScheduler", () => {
  it("keeps the earliest pending wake-up and counts every request", async () => {
    const scheduler = new ManualWakeupScheduler();
    const port: WakeupScheduler = scheduler;
    expect(scheduler.pendingAt).toBeNull();

    await port.wakeAt(5_000);
    await port.wakeAt(9_000);
    expect(scheduler.pendingAt).toBe(5_000);
    await port.wakeAt(3_000);
    expect(scheduler.pendingAt).toBe(3_000);
    await port.wakeAt(3_000);
    expect(scheduler.pendingAt).toBe(3_000);
    expect(scheduler.requests).toBe(4);
  });

  it("collapses concurrent arming to one wake-up", async () => {
    const scheduler = new ManualWakeupScheduler();
    let calls = 0;
    scheduler.onWake(() => {
      calls++;
    });
    await Promise.all([scheduler.wakeAt(300), scheduler.wakeAt(100), scheduler.wakeAt(200)]);
    expect(scheduler.pendingAt).toBe(100);
    expect(await scheduler.fireIfDue(1_000)).toBe(true);
    expect(await scheduler.fireIfDue(1_000)).toBe(false);
    expect(calls).toBe(1);
    expect(scheduler.wakeups).toBe(1);
  });

  it("fires only when due, clearing the pending time before the handler runs", async () => {
    const scheduler = new ManualWakeupScheduler();
    const seenPendingAt: Array<number | null> = [];
    scheduler.onWake(() => {
      seenPendingAt.push(scheduler.pendingAt);
    });

    expect(await scheduler.fireIfDue(0)).toBe(false);
    await scheduler.wakeAt(1_000);
    expect(await scheduler.fireIfDue(999)).toBe(false);
    expect(seenPendingAt).toEqual([]);
    expect(scheduler.pendingAt).toBe(1_000);

    expect(await scheduler.fireIfDue(1_000)).toBe(true);
    expect(seenPendingAt).toEqual([null]);
    expect(scheduler.pendingAt).toBeNull();
    expect(scheduler.wakeups).toBe(1);
  });

  it("lets the handler re-arm, and awaits an async handler", async () => {
    const clock = new ManualClock();
    const scheduler = new ManualWakeupScheduler();
    const woken: number[] = [];
    scheduler.onWake(async () => {
      await Promise.resolve();
      woken.push(clock.now());
      if (woken.length < 3) await scheduler.wakeAt(clock.now() + 60_000);
    });
    await scheduler.wakeAt(60_000);

    for (let minute = 1; minute <= 5; minute++) {
      await clock.advanceBy(60_000);
      await scheduler.fireIfDue(clock.now());
    }

    expect(woken).toEqual([60_000, 120_000, 180_000]);
    expect(scheduler.pendingAt).toBeNull();
    expect(scheduler.requests).toBe(3);
  });

  it("fires late (a wake-up may come after its time) exactly once", async () => {
    const scheduler = new ManualWakeupScheduler();
    let calls = 0;
    scheduler.onWake(() => {
      calls++;
    });
    await scheduler.wakeAt(100);
    expect(await scheduler.fireIfDue(10_000)).toBe(true);
    expect(await scheduler.fireIfDue(20_000)).toBe(false);
    expect(calls).toBe(1);
  });

  it("cancel clears the pending wake-up", async () => {
    const scheduler = new ManualWakeupScheduler();
    let calls = 0;
    scheduler.onWake(() => {
      calls++;
    });
    await scheduler.wakeAt(100);
    await scheduler.cancel();
    expect(scheduler.pendingAt).toBeNull();
    expect(await scheduler.fireIfDue(1_000)).toBe(false);
    await scheduler.cancel();
    await scheduler.wakeAt(2_000);
    expect(scheduler.pendingAt).toBe(2_000);
    expect(calls).toBe(0);
  });

  it("fires without a handler, and the latest onWake handler replaces the previous one", async () => {
    const scheduler = new ManualWakeupScheduler();
    await scheduler.wakeAt(1);
    expect(await scheduler.fireIfDue(1)).toBe(true);

    const calls: string[] = [];
    scheduler.onWake(() => {
      calls.push("first");
    });
    scheduler.onWake(() => {
      calls.push("second");
    });
    await scheduler.wakeAt(2);
    await scheduler.fireIfDue(2);
    expect(calls).toEqual(["second"]);
  });

  it("rejects with the handler's error, the wake-up already consumed", async () => {
    const scheduler = new ManualWakeupScheduler();
    scheduler.onWake(() => Promise.reject(new Error("handler failed")));
    await scheduler.wakeAt(10);
    await expect(scheduler.fireIfDue(10)).rejects.toThrow("handler failed");
    expect(scheduler.pendingAt).toBeNull();
    expect(scheduler.wakeups).toBe(1);
  });

  it("rejects a non-finite time without counting it", async () => {
    const scheduler = new ManualWakeupScheduler();
    await expect(scheduler.wakeAt(Number.NaN)).rejects.toThrow(RangeError);
    await expect(scheduler.wakeAt(Number.POSITIVE_INFINITY)).rejects.toThrow(RangeError);
    expect(scheduler.pendingAt).toBeNull();
    expect(scheduler.requests).toBe(0);
  });
});
