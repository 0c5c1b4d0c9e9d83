import { describe, expect, it } from "vitest";
import { reconnectDelay } from "./reconnect-delay.js";

describe("reconnectDelay", () => {
  it("doubles from the initial delay up to the cap, with no jitter when the draw is 0", () => {
    const delays = [0, 1, 2, 3, 4, 5, 6].map((attempt) => reconnectDelay(attempt, { random: () => 0 }));
    expect(delays).toEqual([500, 1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
  });

  it("takes off up to `jitter` of the delay, at random", () => {
    const options = { initialDelayMs: 1_000, maxDelayMs: 1_000, jitter: 0.5 };
    expect(reconnectDelay(0, { ...options, random: () => 0 })).toBe(1_000);
    expect(reconnectDelay(0, { ...options, random: () => 0.5 })).toBe(750);
    expect(reconnectDelay(0, { ...options, random: () => 0.999_999 })).toBeCloseTo(500, 2);
    expect(reconnectDelay(0, { ...options, jitter: 0, random: () => 0.9 })).toBe(1_000);
  });

  it("stays finite and non-negative whatever it is given", () => {
    const odd = [
      { attempt: 10_000, options: {} },
      { attempt: -3, options: { initialDelayMs: -5, maxDelayMs: Number.NaN } },
      { attempt: Number.NaN, options: { jitter: 7 } },
      { attempt: 2, options: { maxDelayMs: Number.POSITIVE_INFINITY, initialDelayMs: Number.POSITIVE_INFINITY } },
    ];
    for (const { attempt, options } of odd) {
      for (const draw of [0, 0.5, Number.NaN, 2, -1]) {
        const delay = reconnectDelay(attempt, { ...options, random: () => draw });
        expect(Number.isFinite(delay)).toBe(true);
        expect(delay).toBeGreaterThanOrEqual(0);
      }
    }
    expect(reconnectDelay(10_000, { random: () => 0 })).toBe(10_000);
    expect(reconnectDelay(-3, { random: () => 0 })).toBe(500);
    expect(reconnectDelay(1, { initialDelayMs: -5, maxDelayMs: Number.NaN, random: () => 0 })).toBe(1_000);
  });
});
