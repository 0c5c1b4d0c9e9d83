/**
 * "Wake me at t, even after eviction." The host calls back into the library at (or after) the requested time,
 * also when the process was restarted in between (a Durable Object alarm in the demo).
 *
 * Guarantees an implementation must give:
 * - `wakeAt(t)` keeps the **earliest** pending wake-up: asking for a later time while an earlier one is pending
 *   changes nothing, so concurrent arming collapses to one wake-up.
 * - A wake-up may fire late or more than once; the woken code recomputes what is due from stored data.
 */
export interface WakeupScheduler {
  wakeAt(epochMs: number): Promise<void>;
  /** Cancel the pending wake-up, if any (optional: a spurious wake-up is harmless). */
  cancel?(): Promise<void>;
}
