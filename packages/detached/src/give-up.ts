import type { AgentToolInterruptedReason } from "@agent-tools/core-runs";
import type { AgentToolRunOutcome, RunRecord, StopDecision } from "@agent-tools/core-runs/internal";
import { type DetachedGiveUpReason, nextTeardownStep } from "./budget.js";
import type { DetachedExtension, DetachedRunState } from "./detached-state.js";
import type { DetachedEventEmitter } from "./events.js";
import type { RunWatcher } from "./run-watcher.js";

/** What giving up on a run needs. */
export type GiveUpDependencies = {
  extension: DetachedExtension;
  watcher: RunWatcher;
  emit: DetachedEventEmitter;
};

/**
 * Give up on a live detached run (callers hold the run's lock): remember why first (so a crash cannot lose it), then
 * record `interrupted` with the reason. Past the absolute budget the child is torn down too; after `no-progress` it
 * is left running and followed on, to catch a late real result (which repairs `interrupted`).
 */
export async function giveUp(
  dependencies: GiveUpDependencies,
  record: RunRecord,
  state: DetachedRunState,
  reason: DetachedGiveUpReason,
  now: number,
): Promise<void> {
  const { extension, emit } = dependencies;
  const { runId, agentType } = record;
  const isBudget = reason === "budget-exceeded";
  await extension.updateState(runId, (latest) => ({ ...latest, gaveUp: { reason, at: now } }), record);
  const error = isBudget
    ? `The run exceeded its budget of ${state.maxBudgetMs} ms and was stopped`
    : `The run reported no progress for ${state.noProgressBudgetMs} ms`;
  const tornDown = isBudget ? await tearDown(dependencies, record, { reason, error }, error) : false;
  if (!isBudget) {
    // The follower keeps tailing: a late real result repairs the row.
    await extension.finalize(runId, { status: "interrupted", reason, childStillRunning: true, error });
  }
  emit({
    type: "agent_tool:detached:budget_exceeded",
    runId,
    agentType,
    reason,
    budgetMs: isBudget ? state.maxBudgetMs : state.noProgressBudgetMs,
    elapsedMs: Math.max(0, now - record.startedAt),
    tornDown,
    at: now,
  });
}

/**
 * Tear a run's child down and record what is true (callers hold the run's lock): following stops first (so the
 * abort our cancel causes is never recorded as a second result), then the child is cancelled, then `interrupted` is
 * recorded with `childStillRunning: false` only if the cancel reached the child. A child that could not be reached
 * may still be running: it is followed again, so its real result, if it comes, repairs the run and is delivered.
 * Resolves whether the child was torn down.
 */
async function tearDown(
  dependencies: GiveUpDependencies,
  record: RunRecord,
  outcome: { reason: AgentToolInterruptedReason; error: string },
  cancelReason: string,
): Promise<boolean> {
  const { extension, watcher } = dependencies;
  const { runId } = record;
  let isTornDown = false;
  const decide = async (): Promise<AgentToolRunOutcome> => {
    isTornDown = await extension.cancelChild(record, cancelReason);
    return { status: "interrupted", ...outcome, childStillRunning: !isTornDown };
  };
  const stopping = watcher.stop(runId, decide);
  const final = stopping !== undefined ? await stopping : await extension.finalize(runId, await decide());
  const now = extension.clock.now();
  const updated = await extension.updateState(runId, (latest) =>
    isTornDown
      ? { ...latest, tornDown: true }
      : { ...latest, teardown: { attempts: (latest.teardown?.attempts ?? 0) + 1, lastAt: now } },
  );
  if (!isTornDown && final?.status === "interrupted") watcher.ensure(updated?.record ?? final);
  return isTornDown;
}

/**
 * The watch after a give-up reached its bound (callers hold the run's lock): tear the child down, in a few attempts
 * spaced by `intervalMs` if it cannot be reached (following it meanwhile), then stop watching — no more follows or
 * wake-ups for it. A child never reached leaves the run soft, `childStillRunning: true` (a re-dispatch still
 * re-attaches). Resolves when to look again (`null`: never), and whether the watch ended now.
 */
export async function endWatch(
  dependencies: GiveUpDependencies,
  record: RunRecord,
  state: DetachedRunState,
  now: number,
  intervalMs: number,
): Promise<{ next: number | null; ended: boolean }> {
  const { extension, watcher, emit } = dependencies;
  const reason = record.reason ?? state.gaveUp?.reason ?? "no-progress";
  const ended = (tornDown: boolean) => {
    emit({
      type: "agent_tool:detached:watch_ended",
      runId: record.runId,
      agentType: record.agentType,
      reason,
      tornDown,
      at: now,
    });
    return { next: null, ended: true };
  };
  const step = nextTeardownStep(state.teardown, now, intervalMs);
  switch (step.kind) {
    case "wait":
      if (!watcher.isFollowing(record.runId)) watcher.ensure(record);
      return { next: step.until, ended: false };
    case "stop-watching": {
      await extension.updateState(record.runId, (latest) => ({ ...latest, watchEnded: true }), record);
      const stopping = watcher.stop(record.runId, {
        status: "interrupted",
        reason,
        childStillRunning: true,
        error: record.error ?? "The parent stopped watching the run",
      });
      if (stopping !== undefined) await stopping;
      return ended(false);
    }
    case "attempt": {
      const error = record.error ?? "The parent stopped watching the run";
      const isTornDown = await tearDown(dependencies, record, { reason, error }, "The parent stopped watching the run");
      return isTornDown ? ended(true) : { next: now + intervalMs, ended: false };
    }
  }
}

/**
 * Record a terminal outcome: through the follower when the run is followed here (it stops tailing first, then
 * `decide` runs), else directly.
 */
export async function recordOutcome(
  dependencies: GiveUpDependencies,
  runId: string,
  decide: StopDecision,
): Promise<void> {
  const stopping = dependencies.watcher.stop(runId, decide);
  if (stopping !== undefined) await stopping;
  else await dependencies.extension.finalize(runId, typeof decide === "function" ? await decide() : decide);
}
