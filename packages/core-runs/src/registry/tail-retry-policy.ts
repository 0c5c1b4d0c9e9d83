import { AgentToolsError } from "../errors.js";

/**
 * How a parent keeps following a child whose tail ended before the run's terminal (a broken connection, a child
 * evicted mid-stream, an inspection that answers `null` — "no record yet", not failure): tail again after a pause
 * that doubles from `firstDelayMs` up to `maxDelayMs`, until the child has been silent for `budgetMs`. Anything
 * forwarded (a log entry, progress) restarts the count. Past the budget the run is recorded `interrupted` /
 * `not-tailable` with `childStillRunning: true`, so a re-dispatch re-attaches.
 */
export type TailRetryPolicy = {
  firstDelayMs: number;
  maxDelayMs: number;
  budgetMs: number;
};

/** Default `tailRetry`: 250 ms doubling to 10 s, for at most 60 s of silence. */
export const DEFAULT_TAIL_RETRY_POLICY: Readonly<TailRetryPolicy> = {
  firstDelayMs: 250,
  maxDelayMs: 10_000,
  budgetMs: 60_000,
};

/** Where a follower stands: failed attempts since the child last did something, and since when it is quiet. */
export type TailRetryState = { failedAttempts: number; quietSince: number };

/** Tail again after `delayMs`, or give up. */
export type TailRetryDecision = { kind: "retry"; delayMs: number } | { kind: "give-up" };

/** The decision after a tail that ended with no terminal and no sign of life, as a pure function of the time. */
export function nextTailRetry(policy: TailRetryPolicy, state: TailRetryState, now: number): TailRetryDecision {
  const remaining = state.quietSince + policy.budgetMs - now;
  if (remaining <= 0) return { kind: "give-up" };
  const backoff = policy.firstDelayMs * 2 ** Math.max(0, state.failedAttempts - 1);
  return { kind: "retry", delayMs: Math.max(0, Math.min(backoff, policy.maxDelayMs, remaining)) };
}

/** A complete policy from a partial one; throws `INVALID_ARGUMENT` for values that are not finite and ≥ 0. */
export function resolveTailRetryPolicy(partial: Partial<TailRetryPolicy> = {}): TailRetryPolicy {
  const policy = { ...DEFAULT_TAIL_RETRY_POLICY, ...partial };
  for (const [name, value] of Object.entries(policy)) {
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      throw new AgentToolsError(
        "INVALID_ARGUMENT",
        `tailRetry.${name} must be a finite number ≥ 0, got ${String(value)}`,
      );
    }
  }
  return policy;
}
