import type { Clock } from "@agent-tools/core-runs";

/** How many requests of a kind a peer may make: `burst` at once, then one per `refillMs`. */
export type RequestBudgetOptions = { clock: Clock; burst: number; refillMs: number };

/**
 * A token bucket per peer (held weakly: a peer that goes away takes its bucket with it). `take(peer)` spends one
 * request and says whether the peer had one left; buckets refill with the clock, never above `burst`.
 */
export class RequestBudget<TPeer extends object> {
  readonly #options: RequestBudgetOptions;
  readonly #buckets = new WeakMap<TPeer, { tokens: number; at: number }>();

  constructor(options: RequestBudgetOptions) {
    this.#options = options;
  }

  take(peer: TPeer): boolean {
    const { clock, burst, refillMs } = this.#options;
    const now = clock.now();
    const bucket = this.#buckets.get(peer) ?? { tokens: burst, at: now };
    const intervals = Math.floor((now - bucket.at) / refillMs);
    let tokens = bucket.tokens + intervals;
    // A full bucket keeps no credit for the time it spent full.
    let at = bucket.at + intervals * refillMs;
    if (tokens >= burst) {
      tokens = burst;
      at = now;
    }
    const hasToken = tokens >= 1;
    this.#buckets.set(peer, { tokens: hasToken ? tokens - 1 : tokens, at });
    return hasToken;
  }
}
