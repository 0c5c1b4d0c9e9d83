/** How a dropped socket is reopened: exponential back-off with jitter, capped. */
export type ReconnectOptions = {
  /** The delay before the first reopen after a drop (default 500 ms); it doubles with each failed attempt. */
  initialDelayMs?: number;
  /** The cap of the delay (default 10 s). */
  maxDelayMs?: number;
  /**
   * The share of the delay taken off at random, from 0 (no jitter) to 1 (default 0.5: a delay of 1 s waits between
   * 0.5 and 1 s), so that many clients dropped at once do not all come back at the same moment.
   */
  jitter?: number;
};

const DEFAULT_INITIAL_DELAY_MS = 500;
const DEFAULT_MAX_DELAY_MS = 10_000;
const DEFAULT_JITTER = 0.5;

const clampShare = (value: number) => (Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0);
const durationOr = (value: number | undefined, fallback: number) =>
  value !== undefined && Number.isFinite(value) && value >= 0 ? value : fallback;

/**
 * The wait before reopen number `attempt` (0 for the first reopen after a drop): `min(maxDelayMs, initialDelayMs ·
 * 2^attempt)`, less a random share of up to `jitter` of it. Pure: `random` (in [0, 1)) is the only source of chance.
 * Always finite and non-negative: options that are not finite non-negative numbers count as their defaults.
 */
export function reconnectDelay(attempt: number, options: ReconnectOptions & { random: () => number }): number {
  const initial = durationOr(options.initialDelayMs, DEFAULT_INITIAL_DELAY_MS);
  const max = durationOr(options.maxDelayMs, DEFAULT_MAX_DELAY_MS);
  const exponent = Number.isFinite(attempt) ? Math.min(Math.max(0, Math.floor(attempt)), 52) : 0;
  const capped = Math.min(max, initial * 2 ** exponent);
  return capped * (1 - clampShare(options.jitter ?? DEFAULT_JITTER) * clampShare(options.random()));
}
