import type { AgentToolRegistry, AgentToolRunOutcome, RunRecord } from "@agent-tools/core-runs";
import type { DetachedGiveUpReason } from "./budget.js";
import { type DetachedRunState, updateDetachedState } from "./detached-state.js";
import type { DetachedEventEmitter } from "./events.js";
import type { RunWatcher } from "./run-watcher.js";

/** What giving up on a run needs. */
export type GiveUpDependencies = {
  registry: AgentToolRegistry;
  watcher: RunWatcher;
  emit: DetachedEventEmitter;
};

/**
 * Give up on a live detached run (callers hold the run's lock): remember why first (so a crash cannot lose it),
 * record `interrupted` with the reason, and for the absolute budget tear the child down. The follower records
 * the outcome and stops tailing before the child is cancelled, so the abort our teardown causes is never
 * recorded as a second result. After `no-progress` the child is left running and followed on, to catch a late
 * real result (which repairs `interrupted`).
 */
export async function giveUp(
  dependencies: GiveUpDependencies,
  record: RunRecord,
  state: DetachedRunState,
  reason: DetachedGiveUpReason,
  now: number,
): Promise<void> {
  const { registry, emit } = dependencies;
  const { runId, agentType } = record;
  const tearDown = reason === "budget-exceeded";
  await updateDetachedState(
    registry.store,
    runId,
    (latest) => ({ state: { ...latest, gaveUp: { reason, at: now }, ...(tearDown ? { tornDown: true } : {}) } }),
    record,
  );
  const error = tearDown
    ? `The run exceeded its budget of ${state.maxBudgetMs} ms and was stopped`
    : `The run reported no progress for ${state.noProgressBudgetMs} ms`;
  emit({
    type: "agent_tool:detached:budget_exceeded",
    runId,
    agentType,
    reason,
    budgetMs: tearDown ? state.maxBudgetMs : state.noProgressBudgetMs,
    elapsedMs: Math.max(0, now - record.startedAt),
    tornDown: tearDown,
    at: now,
  });
  const outcome: AgentToolRunOutcome = { status: "interrupted", reason, childStillRunning: !tearDown, error };
  if (tearDown) {
    await recordOutcome(dependencies, runId, outcome);
    await cancelChild(registry, record, error);
  } else {
    // The follower keeps tailing: a late real result repairs the row.
    await registry.finalizeAgentToolRun(runId, outcome);
  }
}

/**
 * The watch after a give-up ran out (callers hold the run's lock): mark the child torn down, stop following, and
 * cancel the child. Nothing new is delivered: a second `interrupted` and our own abort are both skipped.
 */
export async function endWatch(
  dependencies: GiveUpDependencies,
  record: RunRecord,
  state: DetachedRunState,
): Promise<void> {
  const { registry, watcher, emit } = dependencies;
  const { runId } = record;
  const reason = record.reason ?? state.gaveUp?.reason ?? "no-progress";
  await updateDetachedState(
    registry.store,
    runId,
    (latest) => ({ state: { ...latest, tornDown: true }, patch: { childStillRunning: false } }),
    record,
  );
  if (watcher.isFollowing(runId)) {
    await watcher.stop(runId, {
      status: "interrupted",
      reason,
      childStillRunning: false,
      error: record.error ?? "The parent stopped watching the run",
    });
  }
  await cancelChild(registry, record, "The parent stopped watching the run");
  emit({
    type: "agent_tool:detached:watch_ended",
    runId,
    agentType: record.agentType,
    reason,
    at: registry.clock.now(),
  });
}

/** Record a terminal outcome: through the follower when the run is followed here (it stops tailing), else directly. */
export async function recordOutcome(
  dependencies: GiveUpDependencies,
  runId: string,
  outcome: AgentToolRunOutcome,
): Promise<void> {
  const stopping = dependencies.watcher.stop(runId, outcome);
  if (stopping) await stopping;
  else await dependencies.registry.finalizeAgentToolRun(runId, outcome);
}

/** Cancel the child; an unreachable child is left to its own recovery bounds. */
export async function cancelChild(registry: AgentToolRegistry, record: RunRecord, reason: string): Promise<void> {
  try {
    await registry.transport.cancel({ agentType: record.agentType, runId: record.runId }, reason);
  } catch {
    // best effort
  }
}
