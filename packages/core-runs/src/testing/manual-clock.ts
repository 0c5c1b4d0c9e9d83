import { MinHeap } from "../min-heap.js";
import type { Clock, TimerHandle } from "../ports/clock.js";

/** How many microtask turns `flushMicrotasks` and `ManualClock` wait by default. */
const DEFAULT_MICROTASK_TURNS = 20;

/**
 * Let pending promise continuations run: awaits `turns` already-resolved promises in a row, so every chain of up to
 * about `turns` `await`s that is ready now gets to run to its next real wait.
 *
 * Uses no macrotask (no `setTimeout`, `setImmediate` or `MessageChannel`), so it works the same under Node and
 * workerd and never lets real time leak into a test. It cannot prove the queue is empty: a chain longer than
 * `turns` steps keeps going after it returns; pass a larger `turns` for deep stream pipelines.
 */
export async function flushMicrotasks(turns: number = DEFAULT_MICROTASK_TURNS): Promise<void> {
  for (let turn = 0; turn < turns; turn++) await Promise.resolve();
}

/**
 * Resolve after one turn of the host's event loop (a macrotask), with no time passing on any `ManualClock`: what waits
 * for the microtask queue to drain runs first — the AI SDK's streams close on a `process.nextTick`, which a chain of
 * `flushMicrotasks` never lets run. Uses `setImmediate` where there is one, else a 0 ms timer.
 */
export function turnEventLoop(): Promise<void> {
  const immediate = (globalThis as { setImmediate?: (callback: () => void) => unknown }).setImmediate;
  return new Promise<void>((resolve) => (immediate ? immediate(resolve) : setTimeout(resolve, 0)));
}

/** Options for `ManualClock`. */
export type ManualClockOptions = {
  /**
   * Microtask turns to let settle before the first timer and after each timer fires (default 20). Raise it when a
   * timer's callback reaches the code that schedules the next timer only through a long promise chain.
   */
  microtaskTurns?: number;
};

type ManualTimer = {
  /** Creation order: breaks ties between timers due at the same time. */
  readonly order: number;
  readonly dueAt: number;
  readonly callback: () => void;
  readonly handle: TimerHandle;
  isCleared: boolean;
};

/**
 * A `Clock` that moves only when a test says so, so a 24 h budget is tested in microseconds of real time.
 *
 * Guarantees:
 * - `now()` starts at `startAt` and changes only inside `advanceBy`, `setTime` and `runAll`; it never goes back
 *   (those methods reject with a `RangeError` instead).
 * - Timers fire in due-time order, ties in creation order, each at its own due time: while a callback runs,
 *   `now()` reads that timer's due time. Timers that callbacks schedule inside the window fire in the same call.
 * - Between timers, and before the first, pending microtasks get to settle (see `flushMicrotasks`), so
 *   `await`-driven code reacts to one timer before the next fires. No real timer is ever used.
 * - A throwing callback rejects the call with its error; the clock then stays at that timer's due time and the
 *   later timers stay pending.
 * - Only one of `advanceBy`, `setTime` or `runAll` may run at a time; overlapping calls reject (await each one).
 *
 * @example
 * const clock = new ManualClock(1_000);
 * const fired: number[] = [];
 * clock.setTimeout(() => fired.push(clock.now()), 50);
 * await clock.advanceBy(100); // fired = [1050], clock.now() = 1100
 */
export class ManualClock implements Clock {
  #now: number;
  #nextOrder = 0;
  #isAdvancing = false;
  readonly #microtaskTurns: number;
  /** Binary min-heap on (dueAt, order). Cleared timers stay in it until they reach the top (lazy deletion). */
  readonly #heap = new MinHeap<ManualTimer>(isEarlier);
  readonly #pending = new Map<TimerHandle, ManualTimer>();

  /** Start the clock at `startAt` epoch milliseconds (default 0). */
  constructor(startAt = 0, options: ManualClockOptions = {}) {
    assertFiniteTime(startAt, "startAt");
    this.#now = startAt;
    this.#microtaskTurns = options.microtaskTurns ?? DEFAULT_MICROTASK_TURNS;
  }

  /** The current manual time in epoch milliseconds. */
  now(): number {
    return this.#now;
  }

  /**
   * Schedule `callback` at `now() + ms`. A negative `ms` counts as 0 (due now: fires on the next `advanceBy(0)`
   * or later, never synchronously). A non-finite `ms` throws a `RangeError`: it is a bug in the caller, which a
   * real host would hide by firing after 1 ms.
   */
  setTimeout(callback: () => void, ms: number): TimerHandle {
    if (!Number.isFinite(ms)) throw new RangeError(`ManualClock.setTimeout: ms must be a finite number, got ${ms}`);
    const handle: TimerHandle = Object.freeze({ manualTimer: this.#nextOrder });
    const timer: ManualTimer = {
      order: this.#nextOrder++,
      dueAt: this.#now + Math.max(0, ms),
      callback,
      handle,
      isCleared: false,
    };
    this.#pending.set(handle, timer);
    this.#heap.push(timer);
    return handle;
  }

  /** Cancel a timer. A no-op for a timer that already fired, was cleared, or belongs to another clock. */
  clearTimeout(handle: TimerHandle): void {
    const timer = this.#pending.get(handle);
    if (timer === undefined) return;
    timer.isCleared = true;
    this.#pending.delete(handle);
    // Keep the heap from filling up with cleared timers when a test arms and clears many.
    if (this.#heap.size > 64 && this.#heap.size > 2 * this.#pending.size)
      this.#heap.retain((timer) => !timer.isCleared);
  }

  /** How many timers are scheduled and neither fired nor cleared. */
  get pendingTimers(): number {
    return this.#pending.size;
  }

  /** The due time of the next pending timer, or `null` when none is pending. */
  get nextTimerAt(): number | null {
    return this.#peek()?.dueAt ?? null;
  }

  /**
   * Move time forward by `ms` (finite, ≥ 0), firing every timer due up to the new time as described on the class.
   * Rejects with a `RangeError` for a negative or non-finite `ms`.
   */
  async advanceBy(ms: number): Promise<void> {
    if (!Number.isFinite(ms) || ms < 0) {
      throw new RangeError(`ManualClock.advanceBy: ms must be a finite number ≥ 0, got ${ms}`);
    }
    await this.#exclusive(() => this.#advanceTo(this.#now + ms));
  }

  /**
   * Move time to `epochMs`, firing every timer due up to it as described on the class. Setting the current time
   * fires the timers due now. Rejects with a `RangeError` when `epochMs` is earlier than `now()` or not finite.
   */
  async setTime(epochMs: number): Promise<void> {
    assertFiniteTime(epochMs, "epochMs");
    if (epochMs < this.#now) {
      throw new RangeError(`ManualClock.setTime: cannot move back from ${this.#now} to ${epochMs}`);
    }
    await this.#exclusive(() => this.#advanceTo(epochMs));
  }

  /**
   * Advance to each next timer and fire it until no timer is pending, including timers that callbacks schedule.
   * Resolves with how many timers fired. Rejects (with an `Error`) once `maxSteps` timers have fired while more
   * are still pending, which catches code that re-arms a timer forever.
   */
  async runAll(maxSteps = 10_000): Promise<number> {
    return this.#exclusive(async () => {
      let fired = 0;
      await flushMicrotasks(this.#microtaskTurns);
      for (let timer = this.#peek(); timer !== undefined; timer = this.#peek()) {
        if (fired >= maxSteps) {
          throw new Error(
            `ManualClock.runAll: ${fired} timers fired and ${this.#pending.size} are still pending (maxSteps ${maxSteps})`,
          );
        }
        await this.#fire(timer);
        fired++;
      }
      return fired;
    });
  }

  async #exclusive<TResult>(action: () => Promise<TResult>): Promise<TResult> {
    if (this.#isAdvancing) {
      throw new Error("ManualClock: advanceBy, setTime or runAll is already running; await it before moving again");
    }
    this.#isAdvancing = true;
    try {
      return await action();
    } finally {
      this.#isAdvancing = false;
    }
  }

  async #advanceTo(target: number): Promise<void> {
    await flushMicrotasks(this.#microtaskTurns);
    for (let timer = this.#peek(); timer !== undefined && timer.dueAt <= target; timer = this.#peek()) {
      await this.#fire(timer);
    }
    this.#now = target;
    await flushMicrotasks(this.#microtaskTurns);
  }

  async #fire(timer: ManualTimer): Promise<void> {
    this.#heap.pop();
    this.#pending.delete(timer.handle);
    this.#now = timer.dueAt;
    timer.callback();
    await flushMicrotasks(this.#microtaskTurns);
  }

  /** The earliest live timer, dropping cleared ones from the top of the heap. */
  #peek(): ManualTimer | undefined {
    let top = this.#heap.peek();
    while (top?.isCleared) {
      this.#heap.pop();
      top = this.#heap.peek();
    }
    return top;
  }
}

function isEarlier(a: ManualTimer, b: ManualTimer): boolean {
  return a.dueAt < b.dueAt || (a.dueAt === b.dueAt && a.order < b.order);
}

function assertFiniteTime(value: number, name: string): void {
  if (!Number.isFinite(value)) throw new RangeError(`ManualClock: ${name} must be a finite number, got ${value}`);
}
