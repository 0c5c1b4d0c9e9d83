import type { AgentToolInterruptedReason } from "@agent-tools/core-runs";
import type { AgentToolRunOutcome } from "@agent-tools/core-runs/internal";

/** The two windows of a re-attach, in ms. */
export type ReattachPolicy = {
  /** Silence allowed since the last forwarded entry (or since re-attaching); `Infinity` for no limit. */
  noProgressTimeoutMs: number;
  /** Cap on the whole re-attach; `0` or `Infinity` for no cap. */
  maxWindowMs: number;
};

/** What a follower tracks: when it re-attached and when it last saw the child do something. */
export type ReattachProgress = {
  attachedAt: number;
  lastActivityAt: number;
};

/** Keep following until `until` (epoch ms; `Infinity` when nothing is due), or give up for `reason`. */
export type ReattachDecision =
  | { kind: "wait"; until: number }
  | { kind: "give-up"; reason: Extract<AgentToolInterruptedReason, "no-progress" | "window-exceeded"> };

/**
 * Decide, as a pure function of the follower's progress and the time, whether to keep following a re-attached
 * child. Past the max window → `window-exceeded` (it wins when both are due: the cap is the host's hard limit);
 * silent for the no-progress timeout → `no-progress`; else wait until the earlier of the two.
 */
export function evaluateReattach(progress: ReattachProgress, now: number, policy: ReattachPolicy): ReattachDecision {
  const windowEndsAt = hasCap(policy.maxWindowMs) ? progress.attachedAt + policy.maxWindowMs : Number.POSITIVE_INFINITY;
  const silenceEndsAt = progress.lastActivityAt + policy.noProgressTimeoutMs;
  if (now >= windowEndsAt) return { kind: "give-up", reason: "window-exceeded" };
  if (now >= silenceEndsAt) return { kind: "give-up", reason: "no-progress" };
  return { kind: "wait", until: Math.min(windowEndsAt, silenceEndsAt) };
}

/** True when a max window of `ms` is a real cap (`0` and `Infinity` mean none). */
export function hasCap(ms: number): boolean {
  return ms > 0 && Number.isFinite(ms);
}

/** The figures an interrupted outcome's message may quote. */
export type InterruptedOutcomeDetails = { ms?: number };

/**
 * The outcome recorded when recovery gives up on a run. `childStillRunning` is `false` only for
 * `window-exceeded`, where recovery tears the child down; for every other reason recovery does not know that the
 * child stopped, so the run stays soft and a re-dispatch re-attaches to it.
 */
export function interruptedOutcome(
  reason: AgentToolInterruptedReason,
  details: InterruptedOutcomeDetails = {},
  childStillRunning: boolean = reason !== "window-exceeded",
): AgentToolRunOutcome {
  return { status: "interrupted", reason, childStillRunning, error: interruptedMessage(reason, details) };
}

/** A human-readable message for an interrupted reason (prose for people; code branches on `reason`). */
function interruptedMessage(reason: AgentToolInterruptedReason, details: InterruptedOutcomeDetails): string {
  const after = details.ms !== undefined && Number.isFinite(details.ms) ? ` (${details.ms} ms)` : "";
  switch (reason) {
    case "no-progress":
      return `The child sent nothing for too long after the parent restarted${after}; it may still be running`;
    case "window-exceeded":
      return `The child did not finish within the re-attach window${after}; it was stopped`;
    case "not-tailable":
      return "The child's run could not be followed after the parent restarted";
    case "inspect-timeout":
      return `The child did not answer in time after the parent restarted${after}`;
    case "inspect-failed":
      return "The child could not be reached after the parent restarted";
    case "recovery-deadline":
      return `The run could not be recovered before the recovery deadline${after}`;
    case "budget-exceeded":
      return "The run went over its budget";
  }
}
