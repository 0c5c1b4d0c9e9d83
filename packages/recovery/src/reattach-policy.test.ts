import { describe, expect, it } from "vitest";
import { evaluateReattach, hasCap, interruptedOutcome } from "./reattach-policy.js";
import { resolveRecoveryOptions } from "./recovery-options.js";

describe("evaluateReattach", () => {
  const progress = { attachedAt: 1_000, lastActivityAt: 1_000 };

  it("waits until the earlier of the silence end and the window end", () => {
    expect(evaluateReattach(progress, 1_000, { noProgressTimeoutMs: 500, maxWindowMs: 2_000 })).toEqual({
      kind: "wait",
      until: 1_500,
    });
    expect(evaluateReattach(progress, 1_000, { noProgressTimeoutMs: 5_000, maxWindowMs: 2_000 })).toEqual({
      kind: "wait",
      until: 3_000,
    });
  });

  it("counts silence from the last activity", () => {
    const active = { attachedAt: 1_000, lastActivityAt: 1_400 };
    const policy = { noProgressTimeoutMs: 500, maxWindowMs: 0 };
    expect(evaluateReattach(active, 1_500, policy)).toEqual({ kind: "wait", until: 1_900 });
    expect(evaluateReattach(active, 1_899, policy)).toEqual({ kind: "wait", until: 1_900 });
    expect(evaluateReattach(active, 1_900, policy)).toEqual({ kind: "give-up", reason: "no-progress" });
  });

  it("gives up at the max window however recent the activity; the window wins a tie", () => {
    const busy = { attachedAt: 1_000, lastActivityAt: 2_999 };
    expect(evaluateReattach(busy, 3_000, { noProgressTimeoutMs: 500, maxWindowMs: 2_000 })).toEqual({
      kind: "give-up",
      reason: "window-exceeded",
    });
    const silent = { attachedAt: 1_000, lastActivityAt: 1_000 };
    expect(evaluateReattach(silent, 3_000, { noProgressTimeoutMs: 2_000, maxWindowMs: 2_000 })).toEqual({
      kind: "give-up",
      reason: "window-exceeded",
    });
  });

  it("treats a max window of 0 or Infinity as no cap, and an infinite silence as no limit", () => {
    expect(hasCap(0)).toBe(false);
    expect(hasCap(Number.POSITIVE_INFINITY)).toBe(false);
    expect(hasCap(1)).toBe(true);
    const forever = { noProgressTimeoutMs: Number.POSITIVE_INFINITY, maxWindowMs: 0 };
    expect(evaluateReattach(progress, 10 ** 12, forever)).toEqual({ kind: "wait", until: Number.POSITIVE_INFINITY });
  });
});

describe("interruptedOutcome", () => {
  it("says the child still runs for every reason but window-exceeded, where recovery stops it", () => {
    expect(interruptedOutcome("no-progress", { ms: 120_000 })).toEqual({
      status: "interrupted",
      reason: "no-progress",
      childStillRunning: true,
      error: "The child sent nothing for too long after the parent restarted (120000 ms); it may still be running",
    });
    expect(interruptedOutcome("window-exceeded").childStillRunning).toBe(false);
    for (const reason of ["not-tailable", "inspect-timeout", "inspect-failed", "recovery-deadline"] as const) {
      expect(interruptedOutcome(reason)).toMatchObject({ reason, childStillRunning: true });
    }
  });
});

describe("resolveRecoveryOptions", () => {
  it("applies the spec's defaults", () => {
    expect(resolveRecoveryOptions()).toEqual({
      agentToolInspectTimeoutMs: 2_000,
      agentToolRecoveryDeadlineMs: 5_000,
      agentToolReattachNoProgressTimeoutMs: 120_000,
      agentToolReattachMaxWindowMs: Number.POSITIVE_INFINITY,
      includeDetached: false,
    });
  });

  it("accepts 0 where it has a meaning and Infinity everywhere", () => {
    expect(
      resolveRecoveryOptions({
        agentToolReattachNoProgressTimeoutMs: 0,
        agentToolReattachMaxWindowMs: 0,
        agentToolInspectTimeoutMs: Number.POSITIVE_INFINITY,
        agentToolRecoveryDeadlineMs: Number.POSITIVE_INFINITY,
      }),
    ).toMatchObject({ agentToolReattachNoProgressTimeoutMs: 0, agentToolReattachMaxWindowMs: 0 });
  });

  it("throws an AgentToolsError for values out of range", () => {
    expect(() => resolveRecoveryOptions({ agentToolRecoveryDeadlineMs: 0 })).toThrow(
      expect.objectContaining({ name: "AgentToolsError", code: "INVALID_ARGUMENT" }),
    );
  });
});
