/** An opaque timer handle returned by `Clock.setTimeout`. */
export type TimerHandle = { readonly __timer: unique symbol } | number | object;

/**
 * Time, injected. Package code never reads the system clock or schedules timers except through a `Clock`,
 * so that tests drive a 24 h budget in milliseconds with `ManualClock`.
 * `now()` is epoch milliseconds and never goes backwards within one clock.
 */
export interface Clock {
  now(): number;
  /** Call `callback` once after `ms` milliseconds (at least). */
  setTimeout(callback: () => void, ms: number): TimerHandle;
  /** Cancel a timer; a no-op for a timer that already fired or was cleared. */
  clearTimeout(handle: TimerHandle): void;
}

/** The host's real clock. The only place in the packages that reads `Date.now()` and `setTimeout`. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms) as unknown as TimerHandle,
  clearTimeout: (handle) => clearTimeout(handle as Parameters<typeof clearTimeout>[0]),
};

/**
 * Resolve after `ms` on `clock`, or reject with the signal's reason when it aborts first.
 */
export function delay(clock: Clock, ms: number, options: { abortSignal?: AbortSignal } = {}): Promise<void> {
  const { abortSignal } = options;
  if (abortSignal?.aborted) return Promise.reject(abortSignal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clock.clearTimeout(handle);
      reject(abortSignal?.reason);
    };
    const handle = clock.setTimeout(() => {
      abortSignal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    abortSignal?.addEventListener("abort", onAbort, { once: true });
  });
}
