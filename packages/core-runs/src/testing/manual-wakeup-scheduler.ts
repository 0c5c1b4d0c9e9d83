import type { WakeupScheduler } from "../ports/wakeup-scheduler.js";

/** What a `ManualWakeupScheduler` calls when a wake-up fires. */
export type ManualWakeupHandler = () => void | Promise<void>;

/**
 * A `WakeupScheduler` a test fires by hand, standing in for a Durable Object alarm.
 *
 * Guarantees:
 * - Keeps only the earliest pending wake-up (`pendingAt`), as the port requires: a later `wakeAt` while an
 *   earlier one is pending changes nothing; an earlier one replaces it. Every `wakeAt` call counts in `requests`.
 * - Nothing fires by itself: `fireIfDue(now)` fires the pending wake-up when `now ≥ pendingAt`. It clears
 *   `pendingAt` before it calls the handler, so the handler can arm the next wake-up, and awaits the handler.
 * - `cancel()` clears the pending wake-up.
 * - Like the port's implementations, it never reads a clock: the test passes `now` (e.g. `clock.now()`).
 *
 * @example
 * const clock = new ManualClock();
 * const scheduler = new ManualWakeupScheduler();
 * scheduler.onWake(() => host.onAlarm()); // whatever the real alarm would run
 * await scheduler.wakeAt(60_000);
 * await clock.advanceBy(60_000);
 * await scheduler.fireIfDue(clock.now()); // true: the handler ran, pendingAt is null unless it re-armed
 */
export class ManualWakeupScheduler implements WakeupScheduler {
  #pendingAt: number | null = null;
  #requests = 0;
  #wakeups = 0;
  #handler: ManualWakeupHandler | null = null;

  /** The pending wake-up's epoch milliseconds, or `null` when none is pending. */
  get pendingAt(): number | null {
    return this.#pendingAt;
  }

  /** How many times `wakeAt` was called, including calls that changed nothing. */
  get requests(): number {
    return this.#requests;
  }

  /** How many times a wake-up fired (`fireIfDue` returned `true`). */
  get wakeups(): number {
    return this.#wakeups;
  }

  /** Set the handler a firing wake-up calls, replacing any previous one. */
  onWake(handler: ManualWakeupHandler): void {
    this.#handler = handler;
  }

  /**
   * Ask to be woken at `epochMs`; keeps the earliest pending time. Rejects with a `RangeError` when `epochMs` is
   * not a finite number.
   */
  async wakeAt(epochMs: number): Promise<void> {
    if (!Number.isFinite(epochMs)) {
      throw new RangeError(`ManualWakeupScheduler.wakeAt: epochMs must be a finite number, got ${epochMs}`);
    }
    this.#requests++;
    if (this.#pendingAt === null || epochMs < this.#pendingAt) this.#pendingAt = epochMs;
  }

  /** Clear the pending wake-up, if any. */
  async cancel(): Promise<void> {
    this.#pendingAt = null;
  }

  /**
   * Fire the pending wake-up when it is due at `now`: clear `pendingAt`, then call and await the handler (if one
   * is set). Resolves `true` when it fired, `false` when nothing was pending or it is not yet due. A handler's
   * rejection rejects this call; the wake-up still counts as fired (as a failed alarm would, with no retry).
   */
  async fireIfDue(now: number): Promise<boolean> {
    if (this.#pendingAt === null || now < this.#pendingAt) return false;
    this.#pendingAt = null;
    this.#wakeups++;
    await this.#handler?.();
    return true;
  }
}
