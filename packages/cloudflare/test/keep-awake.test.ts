// KeepAwake's rules, in Node with a manual clock: while work is in flight the wake-up is armed within the interval,
// looked at no more than twice an interval, armed again when it fires; never while idle, never when turned off.
import { flushMicrotasks, ManualClock } from "@agent-tools/core-runs/testing";
import { describe, expect, it } from "vitest";
import { KeepAwake } from "../src/parent/keep-awake.js";

const INTERVAL = 10_000;

function setUp(options: { intervalMs?: number; failWakeAt?: boolean } = {}) {
  const clock = new ManualClock(1_000);
  const armed: number[] = [];
  const kept: Promise<unknown>[] = [];
  let failWakeAt = options.failWakeAt ?? false;
  const awake = new KeepAwake({
    intervalMs: options.intervalMs ?? INTERVAL,
    clock,
    wakeAt: async (at) => {
      if (failWakeAt) throw new Error("storage unavailable");
      armed.push(at);
    },
    waitUntil: (work) => kept.push(work),
  });
  return {
    clock,
    armed,
    kept,
    awake,
    healWakeAt: () => {
      failWakeAt = false;
    },
  };
}

/** A piece of work and the function that settles it. */
function work(): { promise: Promise<void>; finish: () => void; fail: () => void } {
  let finish = () => {};
  let fail = () => {};
  const promise = new Promise<void>((resolve, reject) => {
    finish = resolve;
    fail = () => reject(new Error("work failed"));
  });
  promise.catch(() => undefined);
  return { promise, finish, fail };
}

describe("KeepAwake", () => {
  it("arms the wake-up one interval ahead when work starts, and hands the work to waitUntil", async () => {
    const { awake, armed, kept } = setUp();
    const turn = work();
    awake.track(turn.promise);
    await flushMicrotasks();
    expect(armed).toEqual([1_000 + INTERVAL]);
    expect(kept).toContain(turn.promise);
    expect(awake.inFlight).toBe(1);
  });

  it("looks at the alarm at most twice an interval while work keeps starting", async () => {
    const { awake, armed, clock } = setUp();
    awake.track(work().promise);
    await clock.advanceBy(INTERVAL / 2 - 1);
    awake.track(work().promise);
    await flushMicrotasks();
    expect(armed).toEqual([1_000 + INTERVAL]);
    await clock.advanceBy(1);
    awake.track(work().promise);
    await flushMicrotasks();
    expect(armed).toEqual([1_000 + INTERVAL, 1_000 + INTERVAL / 2 + INTERVAL]);
  });

  it("arms the next wake-up when one fires while work is in flight, and none once the work has settled", async () => {
    const { awake, armed, clock } = setUp();
    const turn = work();
    awake.track(turn.promise);
    await clock.advanceBy(INTERVAL);
    awake.wokeUp();
    await flushMicrotasks();
    expect(armed).toEqual([1_000 + INTERVAL, 1_000 + 2 * INTERVAL]);
    turn.finish();
    await flushMicrotasks();
    expect(awake.inFlight).toBe(0);
    await clock.advanceBy(INTERVAL);
    awake.wokeUp();
    await flushMicrotasks();
    expect(armed).toHaveLength(2);
  });

  it("counts failed work as settled too", async () => {
    const { awake } = setUp();
    const failing = work();
    const finishing = work();
    awake.track(failing.promise);
    awake.track(finishing.promise);
    expect(awake.inFlight).toBe(2);
    failing.fail();
    await flushMicrotasks();
    expect(awake.inFlight).toBe(1);
    finishing.finish();
    await flushMicrotasks();
    expect(awake.inFlight).toBe(0);
  });

  it("never arms while idle: a wake-up with nothing in flight arms nothing", async () => {
    const { awake, armed } = setUp();
    awake.wokeUp();
    await flushMicrotasks();
    expect(armed).toEqual([]);
  });

  it("with an interval of 0 only hands the work to waitUntil", async () => {
    const { awake, armed, kept } = setUp({ intervalMs: 0 });
    const turn = work();
    awake.track(turn.promise);
    awake.wokeUp();
    await flushMicrotasks();
    expect(armed).toEqual([]);
    expect(kept).toEqual([turn.promise]);
    expect(awake.inFlight).toBe(0);
  });

  it("tries again at the next work after an arm that failed, without waiting half an interval", async () => {
    const { awake, armed, clock, kept, healWakeAt } = setUp({ failWakeAt: true });
    awake.track(work().promise);
    await flushMicrotasks();
    // The failed arm is swallowed (nothing rejects in waitUntil) and forgotten.
    expect(kept).toHaveLength(2);
    await expect(kept[1]).resolves.toBeUndefined();
    expect(armed).toEqual([]);
    healWakeAt();
    await clock.advanceBy(1);
    awake.track(work().promise);
    await flushMicrotasks();
    expect(armed).toEqual([1_001 + INTERVAL]);
  });
});
