/** An opaque timer handle returned by `Clock.setTimeout`. */
export type TimerHandle = unknown;

/**
 * Timers, injected: the client schedules reconnects and grace periods only through a `Clock`, so tests drive back-off
 * with a manual clock and never sleep. `Clock` of `@agent-tools/core-runs` (its `systemClock`, and `ManualClock`
 * of `@agent-tools/core-runs/testing`) fits.
 */
export interface Clock {
  /** Call `callback` once after `ms` milliseconds (at least). */
  setTimeout(callback: () => void, ms: number): TimerHandle;
  /** Cancel a timer; a no-op for a timer that already fired or was cleared. */
  clearTimeout(handle: TimerHandle): void;
}

/** The host's real timers. The only place in this package that calls `setTimeout`. */
export const systemClock: Clock = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as Parameters<typeof clearTimeout>[0]),
};
