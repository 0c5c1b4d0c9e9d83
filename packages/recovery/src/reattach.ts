import type {
  AgentToolInterruptedReason,
  AgentToolRegistry,
  AgentToolRunOutcome,
  RunRecord,
  TimerHandle,
} from "@agent-tools/core-runs";
import { evaluateReattach, interruptedOutcome, type ReattachPolicy } from "./reattach-policy.js";

export type ReattachRunOptions = {
  policy: ReattachPolicy;
  /**
   * The reason recorded when the child stays silent: `no-progress` for a live child; `not-tailable` when the
   * child had already finished and only its log was being drained.
   */
  silenceReason: Extract<AgentToolInterruptedReason, "no-progress" | "not-tailable">;
  /**
   * How long a follower that was told to stop may take to let go (a transport that ignores the abort) before
   * recovery records the outcome itself; also bounds the teardown `cancel` after `window-exceeded`.
   */
  releaseTimeoutMs: number;
};

/**
 * Follow a run to its end through the registry (frames, hooks and ledger as for a live run) under the
 * progress-keyed wait: every entry or progress item forwarded restarts the silence count; silence past
 * `policy.noProgressTimeoutMs` records `interrupted` / `silenceReason` and leaves the child running; past
 * `policy.maxWindowMs` records `interrupted` / `window-exceeded` and then, only then, cancels the child, so that
 * the abort it causes is never recorded as a second result. Resolves to the run's row at the end (`null` if it
 * was cleared meanwhile). Never waits longer than the windows plus `releaseTimeoutMs` for a follower to let go.
 */
export async function reattachRun(
  registry: AgentToolRegistry,
  record: RunRecord,
  options: ReattachRunOptions,
): Promise<RunRecord | null> {
  const final = await follow(registry, record.runId, options);
  if (final?.status === "interrupted" && final.reason === "window-exceeded") {
    await teardown(registry, record, options.releaseTimeoutMs);
  }
  return final;
}

function follow(registry: AgentToolRegistry, runId: string, options: ReattachRunOptions): Promise<RunRecord | null> {
  const { clock } = registry;
  const { policy } = options;
  const attachedAt = clock.now();
  let lastActivityAt = attachedAt;
  let hasActivity = false;
  let givenUp: AgentToolRunOutcome | null = null;
  let isSettled = false;
  const stop = new AbortController();
  const timers = new Set<TimerHandle>();
  const schedule = (callback: () => void, ms: number) => {
    const handle = clock.setTimeout(() => {
      timers.delete(handle);
      callback();
    }, ms);
    timers.add(handle);
  };
  const onActivity = () => {
    lastActivityAt = clock.now();
    hasActivity = true;
  };

  return new Promise<RunRecord | null>((resolve, reject) => {
    const settle = (outcome: { record: RunRecord | null } | { error: unknown }) => {
      if (isSettled) return;
      isSettled = true;
      for (const handle of timers) clock.clearTimeout(handle);
      timers.clear();
      if ("record" in outcome) resolve(outcome.record);
      else reject(outcome.error);
    };

    registry.followAgentToolRun(runId, { stop: stop.signal, onActivity }).then(
      (final) => settle({ record: final }),
      (error: unknown) => settle({ error }),
    );

    // Workaround: on a registry that is not driving the run yet, `followAgentToolRun` registers `onActivity` only
    // if the run's live state already exists, which it creates after an await. A second call with the same
    // listener (kept in a Set, so never twice) once that state exists registers it; it joins the same driver.
    const attach = () => {
      if (isSettled || givenUp !== null || hasActivity) return;
      registry.followAgentToolRun(runId, { onActivity }).catch(() => undefined);
    };
    schedule(attach, 0);

    const giveUp = (
      reason: Extract<AgentToolInterruptedReason, "no-progress" | "not-tailable" | "window-exceeded">,
    ) => {
      const ms = reason === "window-exceeded" ? policy.maxWindowMs : policy.noProgressTimeoutMs;
      const outcome = interruptedOutcome(reason, { ms });
      givenUp = outcome;
      stop.abort(outcome);
      // A follower stuck in a transport that ignores the abort must not hold recovery: record the outcome here.
      schedule(() => {
        registry.finalizeAgentToolRun(runId, outcome).then(
          (final) => settle({ record: final }),
          (error: unknown) => settle({ error }),
        );
      }, options.releaseTimeoutMs);
    };

    const check = () => {
      if (isSettled || givenUp !== null) return;
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

/** Cancel the child after `window-exceeded` was recorded; bounded, and a failure changes nothing recorded. */
async function teardown(registry: AgentToolRegistry, record: RunRecord, timeoutMs: number): Promise<void> {
  const { clock } = registry;
  const ref = { agentType: record.agentType, runId: record.runId };
  await new Promise<void>((resolve) => {
    let handle: TimerHandle | null = null;
    const done = () => {
      if (handle !== null) clock.clearTimeout(handle);
      handle = null;
      resolve();
    };
    if (Number.isFinite(timeoutMs)) handle = clock.setTimeout(done, timeoutMs);
    let cancelling: Promise<void>;
    try {
      cancelling = registry.transport.cancel(ref, "The re-attach window was exceeded");
    } catch (error) {
      cancelling = Promise.reject(error);
    }
    cancelling.then(done, done);
  });
}
