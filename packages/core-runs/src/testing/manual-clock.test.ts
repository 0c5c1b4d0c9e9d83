import { describe, expect, it } from "vitest";
import { type Clock, delay } from "../ports/clock.js";
import { flushMicrotasks, ManualClock } from "./manual-clock.js";

describe("ManualClock", () => {
  it("starts at startAt (0 by default) and implements Clock", () => {
    const clock: Clock = new ManualClock(5_000);
    expect(clock.now()).toBe(5_000);
    expect(new ManualClock().now()).toBe(0);
    expect(() => new ManualClock(Number.NaN)).toThrow(RangeError);
  });

  it("fires due timers in time order, ties in creation order, each at its own due time", async () => {
    const clock = new ManualClock(1_000);
    const fired: Array<[string, number]> = [];
    const record = (name: string) => () => fired.push([name, clock.now()]);
    clock.setTimeout(record("c@30"), 30);
    clock.setTimeout(record("a@10"), 10);
    clock.setTimeout(record("b1@20"), 20);
    clock.setTimeout(record("b2@20"), 20);
    clock.setTimeout(record("late@200"), 200);
    expect(clock.pendingTimers).toBe(5);
    expect(clock.nextTimerAt).toBe(1_010);

    await clock.advanceBy(100);

    expect(fired).toEqual([
      ["a@10", 1_010],
      ["b1@20", 1_020],
      ["b2@20", 1_020],
      ["c@30", 1_030],
    ]);
    expect(clock.now()).toBe(1_100);
    expect(clock.pendingTimers).toBe(1);
    expect(clock.nextTimerAt).toBe(1_200);
  });

  it("fires a timer due exactly at the end of the window, and nothing synchronously", async () => {
    const clock = new ManualClock();
    const fired: number[] = [];
    clock.setTimeout(() => fired.push(clock.now()), 0);
    clock.setTimeout(() => fired.push(clock.now()), -5);
    clock.setTimeout(() => fired.push(clock.now()), 50);
    expect(fired).toEqual([]);
    await clock.advanceBy(0);
    expect(fired).toEqual([0, 0]);
    await clock.advanceBy(49);
    expect(fired).toEqual([0, 0]);
    await clock.advanceBy(1);
    expect(fired).toEqual([0, 0, 50]);
  });

  it("fires timers that callbacks schedule inside the window, and leaves later ones pending", async () => {
    const clock = new ManualClock();
    const fired: number[] = [];
    const tick = () => {
      fired.push(clock.now());
      clock.setTimeout(tick, 30);
    };
    clock.setTimeout(tick, 30);
    clock.setTimeout(() => {
      fired.push(clock.now());
      clock.setTimeout(() => fired.push(clock.now()), 0);
    }, 45);

    await clock.advanceBy(100);

    expect(fired).toEqual([30, 45, 45, 60, 90]);
    expect(clock.pendingTimers).toBe(1);
    expect(clock.nextTimerAt).toBe(120);
  });

  it("lets microtasks settle before the first timer and between timers", async () => {
    const clock = new ManualClock();
    const seen: string[] = [];
    // Work started before the advance schedules its timer only after a few awaits.
    void (async () => {
      await Promise.resolve();
      await Promise.resolve();
      clock.setTimeout(() => seen.push(`early@${clock.now()}`), 5);
    })();
    // A timer whose promise continuation schedules the next timer, and sees the time of its own timer.
    void (async () => {
      await delay(clock, 10);
      seen.push(`after-delay@${clock.now()}`);
      await delay(clock, 10);
      seen.push(`after-second-delay@${clock.now()}`);
    })();
    clock.setTimeout(() => seen.push(`plain@${clock.now()}`), 10);

    await clock.advanceBy(25);

    expect(seen).toEqual(["early@5", "after-delay@10", "plain@10", "after-second-delay@20"]);
    expect(clock.pendingTimers).toBe(0);
  });

  it("settles longer promise chains with a larger microtaskTurns", async () => {
    const chainThenSchedule = (clock: ManualClock, fired: number[]) => {
      clock.setTimeout(() => {
        void (async () => {
          for (let step = 0; step < 200; step++) await Promise.resolve();
          clock.setTimeout(() => fired.push(clock.now()), 5);
        })();
      }, 10);
    };

    const deep = new ManualClock(0, { microtaskTurns: 500 });
    const deepFired: number[] = [];
    chainThenSchedule(deep, deepFired);
    await deep.advanceBy(100);
    expect(deepFired).toEqual([15]);

    // Documented limit: with the default 20 turns the chain is still running when the window closes.
    const shallow = new ManualClock();
    const shallowFired: number[] = [];
    chainThenSchedule(shallow, shallowFired);
    await shallow.advanceBy(100);
    await flushMicrotasks(500);
    expect(shallowFired).toEqual([]);
    expect(shallow.nextTimerAt).toBe(105);
  });

  it("clearTimeout cancels a pending timer and is a no-op for fired, cleared or foreign handles", async () => {
    const clock = new ManualClock();
    const other = new ManualClock();
    const fired: string[] = [];
    const keep = clock.setTimeout(() => fired.push("keep"), 10);
    const drop = clock.setTimeout(() => fired.push("drop"), 10);
    const foreign = other.setTimeout(() => fired.push("foreign"), 10);
    clock.clearTimeout(drop);
    clock.clearTimeout(drop);
    clock.clearTimeout(foreign);
    clock.clearTimeout({});
    clock.clearTimeout(42);
    expect(clock.pendingTimers).toBe(1);

    await clock.advanceBy(10);
    clock.clearTimeout(keep);
    await other.advanceBy(10);

    expect(fired).toEqual(["keep", "foreign"]);
    expect(clock.pendingTimers).toBe(0);
    expect(clock.nextTimerAt).toBeNull();
  });

  it("keeps time order when many timers are armed and cleared", async () => {
    const clock = new ManualClock();
    const fired: number[] = [];
    const handles = [];
    // A deterministic shuffle of due times 1..500.
    for (let index = 0; index < 500; index++) {
      const dueIn = ((index * 317) % 500) + 1;
      handles.push({ dueIn, handle: clock.setTimeout(() => fired.push(clock.now()), dueIn) });
    }
    for (const { dueIn, handle } of handles) if (dueIn % 3 === 0) clock.clearTimeout(handle);

    await clock.advanceBy(1_000);

    const expected = Array.from({ length: 500 }, (_, index) => index + 1).filter((time) => time % 3 !== 0);
    expect(fired).toEqual(expected);
    expect(clock.pendingTimers).toBe(0);
  });

  it("setTime moves to an absolute time, and neither method moves backwards", async () => {
    const clock = new ManualClock(1_000);
    const fired: number[] = [];
    clock.setTimeout(() => fired.push(clock.now()), 500);
    await clock.setTime(1_400);
    expect(fired).toEqual([]);
    await clock.setTime(1_400);
    await clock.setTime(2_000);
    expect(fired).toEqual([1_500]);
    expect(clock.now()).toBe(2_000);

    await expect(clock.setTime(1_999)).rejects.toThrow(RangeError);
    await expect(clock.advanceBy(-1)).rejects.toThrow(RangeError);
    await expect(clock.advanceBy(Number.NaN)).rejects.toThrow(RangeError);
    await expect(clock.setTime(Number.POSITIVE_INFINITY)).rejects.toThrow(RangeError);
    expect(clock.now()).toBe(2_000);
  });

  it("refuses a non-finite delay", () => {
    const clock = new ManualClock();
    expect(() => clock.setTimeout(() => {}, Number.NaN)).toThrow(RangeError);
    expect(() => clock.setTimeout(() => {}, Number.POSITIVE_INFINITY)).toThrow(RangeError);
    expect(clock.pendingTimers).toBe(0);
  });

  it("rejects with a callback's error, staying at that timer's due time with later timers pending", async () => {
    const clock = new ManualClock();
    const fired: number[] = [];
    clock.setTimeout(() => fired.push(clock.now()), 10);
    clock.setTimeout(() => {
      throw new Error("boom");
    }, 20);
    clock.setTimeout(() => fired.push(clock.now()), 30);

    await expect(clock.advanceBy(100)).rejects.toThrow("boom");

    expect(fired).toEqual([10]);
    expect(clock.now()).toBe(20);
    expect(clock.pendingTimers).toBe(1);
    await clock.advanceBy(80);
    expect(fired).toEqual([10, 30]);
  });

  it("rejects an advance that overlaps another", async () => {
    const clock = new ManualClock();
    clock.setTimeout(() => {}, 10);
    const first = clock.advanceBy(10);
    await expect(clock.advanceBy(5)).rejects.toThrow(/already running/);
    await expect(clock.runAll()).rejects.toThrow(/already running/);
    await first;
    expect(clock.now()).toBe(10);
  });

  it("works with delay() from the Clock port, including abort", async () => {
    const clock = new ManualClock();
    const controller = new AbortController();
    const aborted = delay(clock, 1_000, { abortSignal: controller.signal });
    const completed = delay(clock, 24 * 60 * 60 * 1_000);
    expect(clock.pendingTimers).toBe(2);
    controller.abort(new Error("stop"));
    await expect(aborted).rejects.toThrow("stop");
    expect(clock.pendingTimers).toBe(1);
    await clock.advanceBy(24 * 60 * 60 * 1_000);
    await expect(completed).resolves.toBeUndefined();
  });

  describe("runAll", () => {
    it("fires every timer, including ones callbacks schedule, and resolves how many fired", async () => {
      const clock = new ManualClock(100);
      const fired: number[] = [];
      let remaining = 3;
      const again = () => {
        fired.push(clock.now());
        if (--remaining > 0) clock.setTimeout(again, 1_000);
      };
      clock.setTimeout(again, 1_000);
      clock.setTimeout(() => fired.push(clock.now()), 50);
      void (async () => {
        await delay(clock, 5_000);
        fired.push(clock.now());
      })();

      await expect(clock.runAll()).resolves.toBe(5);

      expect(fired).toEqual([150, 1_100, 2_100, 3_100, 5_100]);
      expect(clock.now()).toBe(5_100);
      expect(clock.pendingTimers).toBe(0);
      await expect(clock.runAll()).resolves.toBe(0);
    });

    it("rejects after maxSteps timers when a timer re-arms forever", async () => {
      const clock = new ManualClock();
      const forever = () => {
        clock.setTimeout(forever, 10);
      };
      clock.setTimeout(forever, 10);
      await expect(clock.runAll(50)).rejects.toThrow(/50 timers fired/);
      expect(clock.now()).toBe(500);
      expect(clock.pendingTimers).toBe(1);
    });
  });
});

describe("flushMicrotasks", () => {
  it("lets a short promise chain run to completion without any macrotask", async () => {
    const steps: number[] = [];
    void (async () => {
      for (let step = 1; step <= 3; step++) {
        await Promise.resolve();
        steps.push(step);
      }
    })();
    await flushMicrotasks(5);
    expect(steps).toEqual([1, 2, 3]);
  });
});
