import type { WakeupScheduler } from "@agent-tools/core-runs/internal";

/** The part of `ctx.storage` the scheduler uses. */
export type DurableObjectWakeupSchedulerStorage = Pick<DurableObjectStorage, "getAlarm" | "setAlarm" | "deleteAlarm">;

/**
 * `WakeupScheduler` over a Durable Object's alarm: the object's `alarm()` handler is the wake-up, and workerd
 * keeps the alarm across eviction and restarts.
 *
 * A Durable Object has one alarm, so `wakeAt` keeps the earliest pending time and never postpones it. Calls are
 * chained on this instance: `getAlarm` and `setAlarm` are asynchronous, and two interleaved `wakeAt`s must not
 * both read "none pending" and let the later time win. (workerd orders an object's storage calls so that this
 * does not happen today; the chain keeps the guarantee from resting on that.) Use one scheduler per object.
 *
 * @example
 * export class Assistant extends DurableObject<Env> {
 *   readonly wakeups = new DurableObjectWakeupScheduler(this.ctx.storage);
 *   override async alarm() { await this.reconcile(); }
 * }
 */
export class DurableObjectWakeupScheduler implements WakeupScheduler {
  readonly #storage: DurableObjectWakeupSchedulerStorage;
  #pending: Promise<unknown> = Promise.resolve();

  constructor(storage: DurableObjectWakeupSchedulerStorage) {
    this.#storage = storage;
  }

  /**
   * Wake at `at` unless an earlier wake-up is pending. `at` may be a function, asked when this call's turn in the
   * chain comes (what is due is decided from the state the object is in then, not when it asked); `null` arms nothing
   * and reads nothing. Setting an alarm makes the object's next commit wait for the alarm's scheduling: arm one only
   * when it is needed.
   */
  wakeAt(at: number | (() => number | null)): Promise<void> {
    return this.#serialized(async () => {
      const epochMs = typeof at === "function" ? at() : at;
      if (epochMs === null) return;
      const scheduled = await this.#storage.getAlarm();
      if (scheduled !== null && scheduled <= epochMs) return;
      await this.#storage.setAlarm(epochMs);
    });
  }

  cancel(): Promise<void> {
    return this.#serialized(() => this.#storage.deleteAlarm());
  }

  #serialized(operation: () => Promise<void>): Promise<void> {
    const result = this.#pending.then(operation);
    // The chain must survive a rejected call; the caller still sees the rejection through `result`.
    this.#pending = result.catch(() => undefined);
    return result;
  }
}
