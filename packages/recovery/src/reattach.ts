import type { AgentToolInterruptedReason, RegistryExtension, TimerHandle } from "@agent-tools/core-runs";
import type { RunRecord } from "@agent-tools/core-runs/internal";
import { evaluateReattach, interruptedOutcome, type ReattachPolicy } from "./reattach-policy.js";

export type ReattachRunOptions = {
  policy: ReattachPolicy;
  /**
   * The reason recorded when the child stays silent: `no-progress` for a live child; `not-tailable` when the
   * child had already finished and only its log was being drained.
   */
  silenceReason: Extract<AgentToolInterruptedReason, "no-progress" | "not-tailable">;
  /** Bound on the teardown `cancel` after `window-exceeded`: a child that does not answer in time counts as not torn down. */
  releaseTimeoutMs: number;
};

/**
 * Follow a run to its end through the registry (frames, hooks and ledger as for a live run) under the
 * progress-keyed wait: every entry or progress item forwarded restarts the silence count; silence past
 * `policy.noProgressTimeoutMs` records `interrupted` / `silenceReason` and leaves the child running; past
 * `policy.maxWindowMs` following stops, the child is cancelled (so the abort it causes is never recorded as a
 * second result), and `interrupted` / `window-exceeded` is recorded with what is true: `childStillRunning: false`
 * only if the cancel reached the child. Resolves to the run's row at the end (`null` if it was cleared meanwhile).
 */
export function reattachRun(
  extension: RegistryExtension<unknown>,
  record: RunRecord,
  options: ReattachRunOptions,
): Promise<RunRecord | null> {
  const { clock } = extension;
  const { policy } = options;
  const attachedAt = clock.now();
  let lastActivityAt = attachedAt;
  let isGivenUp = false;
  let isSettled = false;
  const timers = new Set<TimerHandle>();
  const schedule = (callback: () => void, ms: number) => {
    const handle = clock.setTimeout(() => {
      timers.delete(handle);
      callback();
    }, ms);
    timers.add(handle);
  };
  const follow = extension.follow(record.runId, {
    onActivity: () => {
      lastActivityAt = clock.now();
    },
  });

  return new Promise<RunRecord | null>((resolve, reject) => {
    const settle = (outcome: { record: RunRecord | null } | { error: unknown }) => {
      if (isSettled) return;
      isSettled = true;
      for (const handle of timers) clock.clearTimeout(handle);
      timers.clear();
      if ("record" in outcome) resolve(outcome.record);
      else reject(outcome.error);
    };
    follow.done.then(
      (final) => settle({ record: final }),
      (error: unknown) => settle({ error }),
    );

    const giveUp = (
      reason: Extract<AgentToolInterruptedReason, "no-progress" | "not-tailable" | "window-exceeded">,
    ) => {
      isGivenUp = true;
      if (reason !== "window-exceeded") {
        void follow.stop(interruptedOutcome(reason, { ms: policy.noProgressTimeoutMs }));
        return;
      }
      void follow.stop(async () => {
        const isTornDown = await cancelWithin(extension, record, options.releaseTimeoutMs);
        return interruptedOutcome(reason, { ms: policy.maxWindowMs }, !isTornDown);
      });
    };

    const check = () => {
      if (isSettled || isGivenUp) return;
      const now = clock.now();
      const decision = evaluateReattach({ attachedAt, lastActivityAt }, now, policy);
      if (decision.kind === "give-up") {
        giveUp(decision.reason === "no-progress" ? options.silenceReason : decision.reason);
        return;
      }
      if (Number.isFinite(decision.until)) schedule(check, decision.until - now);
    };
    check();
  });
}

/** Cancel the child within `timeoutMs`; resolves whether the cancel reached it in time. */
async function cancelWithin(
  extension: RegistryExtension<unknown>,
  record: RunRecord,
  timeoutMs: number,
): Promise<boolean> {
  const { clock } = extension;
  let handle: TimerHandle | null = null;
  const timeout = new Promise<boolean>((resolve) => {
    if (Number.isFinite(timeoutMs)) handle = clock.setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([extension.cancelChild(record, "The re-attach window was exceeded"), timeout]);
  } finally {
    if (handle !== null) clock.clearTimeout(handle);
  }
}
