import type { Clock } from "@agent-tools/core-runs";

export type KeepAwakeOptions = {
  /** The longest time the wake-up may be away while work is in flight; `0` (or less) turns keeping awake off. */
  intervalMs: number;
  clock: Clock;
  /** Arm the object's wake-up no later than `at` (never postponing an earlier one): the Durable Object's alarm. */
  wakeAt(at: number): Promise<void>;
  /** Keep the object alive for `work` (the Durable Object's `ctx.waitUntil`). */
  waitUntil(work: Promise<unknown>): void;
};

/**
 * Keeps a Durable Object awake while it has work that a dying runtime would cut (a chat turn, a run it follows, a
 * delivery): until the work settles, its alarm stays armed within `intervalMs`, so after a crash, an eviction or a
 * deploy the alarm starts the object again by itself, and its start-up resumes what was cut, without waiting for a
 * client or a request. Arming is looked at no more than twice an interval (two storage calls), unless the alarm has
 * just fired (`wokeUp`): a busy object then costs one alarm per interval, an idle one none.
 */
export class KeepAwake {
  readonly #options: KeepAwakeOptions;
  #inFlight = 0;
  #checkedAt = Number.NEGATIVE_INFINITY;

  constructor(options: KeepAwakeOptions) {
    this.#options = options;
  }

  /** How many pieces of work are in flight. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** `waitUntil(work)`, and keep awake until `work` settles. */
  track(work: Promise<unknown>): void {
    this.#options.waitUntil(work);
    if (!(this.#options.intervalMs > 0)) return;
    this.#inFlight += 1;
    const settled = () => {
      this.#inFlight -= 1;
    };
    work.then(settled, settled);
    this.#arm(false);
  }

  /** The wake-up fired (it is spent): arm the next one if work is still in flight. */
  wokeUp(): void {
    this.#arm(true);
  }

  #arm(force: boolean): void {
    const { intervalMs, clock, wakeAt, waitUntil } = this.#options;
    if (!(intervalMs > 0) || this.#inFlight === 0) return;
    const now = clock.now();
    if (!force && now - this.#checkedAt < intervalMs / 2) return;
    this.#checkedAt = now;
    waitUntil(
      wakeAt(now + intervalMs).catch(() => {
        // Not armed: the next work or wake-up looks again.
        this.#checkedAt = Number.NEGATIVE_INFINITY;
      }),
    );
  }
}
