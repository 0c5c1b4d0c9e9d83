import {
  type AgentToolInterruptedReason,
  type AgentToolRegistry,
  AgentToolsError,
  type RegistryExtension,
} from "@agent-tools/core-runs";
import type { RunRecord } from "@agent-tools/core-runs/internal";
import { isHardTerminalStatus } from "@agent-tools/core-runs/protocol";
import { classifyRun } from "./classify-run.js";
import { reattachRun } from "./reattach.js";
import { interruptedOutcome } from "./reattach-policy.js";
import {
  type RecoveryDoneEvent,
  type RecoveryEvent,
  type RecoveryRowEvent,
  type RecoveryRowFailedEvent,
  type RecoveryRowFields,
  type RecoveryRowOutcome,
  recoveryEvent,
} from "./recovery-events.js";
import { type RecoverAgentToolRunsOptions, resolveRecoveryOptions } from "./recovery-options.js";

/** How one row came out of recovery. */
export type RecoveryRowReport = RecoveryRowFields;

/** A row whose recovery threw (e.g. the store failed); it was left as it was. */
export type RecoveryRowFailure = { runId: string; agentType: string; error: unknown };

/** What one recovery did, row by row. */
export type RecoveryReport = {
  startedAt: number;
  completedAt: number;
  durationMs: number;
  /** Every row that was `starting`/`running`, in the store's order, except cleared and failed ones. */
  rows: RecoveryRowReport[];
  /** Rows cleared while they were being recovered. */
  cleared: string[];
  failures: RecoveryRowFailure[];
};

/** A recovery in progress. */
export type RecoveryHandle = {
  /**
   * Settles when every row is recovered. Rejects (with an `AgentToolsError`, `STORE_FAILED`) only when the rows
   * cannot be listed; a rejection nobody awaits is not reported as unhandled.
   */
  done: Promise<RecoveryReport>;
};

const inFlight = new WeakMap<AgentToolRegistry, RecoveryHandle>();

/**
 * Recover the runs a parent left `starting`/`running` when it stopped (deploy, eviction, crash). Call it at
 * start-up: it returns at once and works in the background. Single-flight per registry: a call while a recovery
 * of the same registry is in progress returns that recovery.
 *
 * Every row is recovered concurrently and each is bounded, so a hung child never holds up the others:
 * - its child is inspected (each inspection bounded by `agentToolInspectTimeoutMs`, all classification by
 *   `agentToolRecoveryDeadlineMs`); a child that cannot be classified ends the run `interrupted` /
 *   `inspect-timeout` | `inspect-failed` | `recovery-deadline` | `not-tailable`;
 * - a child that already finished is collected (its log drained, its result recorded), never run again;
 * - a live child is re-attached from the last sequence the parent recorded and followed to its end under the
 *   progress-keyed wait (`agentToolReattachNoProgressTimeoutMs`, `agentToolReattachMaxWindowMs`); a run whose
 *   child never acknowledged `start` is started again, idempotently.
 *
 * Frames, `onAgentToolFinish` and its ledger come from the registry, exactly as for a live run. Each row emits
 * `agent_tool:recovery:row`, the whole `agent_tool:recovery:done`, through the registry's sink.
 *
 * @example
 * // In the parent's constructor (a Durable Object here):
 * const { done } = recoverAgentToolRuns(this.registry);
 * ctx.waitUntil(done);
 */
export function recoverAgentToolRuns(
  registry: AgentToolRegistry,
  options: RecoverAgentToolRunsOptions = {},
): RecoveryHandle {
  const existing = inFlight.get(registry);
  if (existing) return existing;
  const resolved = resolveRecoveryOptions(options);
  // Recovery keeps no state of its own on the rows.
  const extension = registry.extension<unknown>({ key: "recovery", read: () => null });
  const done = recover(extension, resolved).finally(() => {
    if (inFlight.get(registry) === handle) inFlight.delete(registry);
  });
  // The host may start recovery and never look at `done`: a listing failure must not crash it.
  done.catch(() => undefined);
  const handle: RecoveryHandle = { done };
  inFlight.set(registry, handle);
  return handle;
}

type RowResult =
  | { kind: "recovered"; report: RecoveryRowReport }
  | { kind: "cleared"; runId: string }
  | { kind: "failed"; failure: RecoveryRowFailure };

type Extension = RegistryExtension<unknown>;

async function recover(
  extension: Extension,
  options: ReturnType<typeof resolveRecoveryOptions>,
): Promise<RecoveryReport> {
  const { clock } = extension;
  const startedAt = clock.now();
  let records: RunRecord[];
  try {
    // Detached runs are watched by their own budgets (`@agent-tools/detached` re-follows them on start): a slow
    // background run is not dead, so the re-attach windows here must not give up on it.
    const live = await extension.listRuns({ status: ["starting", "running"] });
    records = options.includeDetached ? live : live.filter((record) => record.detached !== true);
  } catch (error) {
    throw new AgentToolsError("STORE_FAILED", "Recovery could not list the runs to recover", { cause: error });
  }
  const deadlineAt = startedAt + options.agentToolRecoveryDeadlineMs;
  const results = await Promise.all(
    records.map((record) => recoverRowSafely(extension, record, { ...options, deadlineAt })),
  );
  const report: RecoveryReport = {
    startedAt,
    completedAt: clock.now(),
    durationMs: clock.now() - startedAt,
    rows: results.flatMap((result) => (result.kind === "recovered" ? [result.report] : [])),
    cleared: results.flatMap((result) => (result.kind === "cleared" ? [result.runId] : [])),
    failures: results.flatMap((result) => (result.kind === "failed" ? [result.failure] : [])),
  };
  const count = (outcome: RecoveryRowOutcome) => report.rows.filter((row) => row.outcome === outcome).length;
  emit(
    extension,
    recoveryEvent<RecoveryDoneEvent>(
      "agent_tool:recovery:done",
      {
        rows: records.length,
        finalized: count("finalized"),
        reattached: count("reattached"),
        interrupted: count("interrupted"),
        cleared: report.cleared.length,
        failed: report.failures.length,
        durationMs: report.durationMs,
      },
      report.completedAt,
    ),
  );
  return report;
}

type RowContext = ReturnType<typeof resolveRecoveryOptions> & { deadlineAt: number };

async function recoverRowSafely(extension: Extension, record: RunRecord, context: RowContext): Promise<RowResult> {
  const { runId, agentType } = record;
  try {
    return await recoverRow(extension, record, context);
  } catch (error) {
    emit(
      extension,
      recoveryEvent<RecoveryRowFailedEvent>(
        "agent_tool:recovery:row_failed",
        { runId, agentType, errorName: error instanceof Error ? error.name : typeof error },
        extension.clock.now(),
      ),
    );
    return { kind: "failed", failure: { runId, agentType, error } };
  }
}

async function recoverRow(extension: Extension, record: RunRecord, context: RowContext): Promise<RowResult> {
  const { clock } = extension;
  const { runId, agentType } = record;
  const startedAt = clock.now();
  const isStartAcknowledged = record.startAcknowledged === true || record.status !== "starting";
  const classification = await classifyRun({
    inspect: () => extension.inspectChild({ agentType, runId }),
    clock,
    isStartAcknowledged,
    inspectTimeoutMs: context.agentToolInspectTimeoutMs,
    deadlineAt: context.deadlineAt,
  });
  const noProgressMs = context.agentToolReattachNoProgressTimeoutMs;
  let final: RunRecord | null;
  switch (classification.kind) {
    case "unresolved":
      final = await extension.finalize(
        runId,
        interruptedOutcome(classification.reason, detailsOf(classification.reason, context)),
      );
      break;
    case "terminal":
      // Only the log is left to drain: bounded by silence, like an inspection.
      final = await reattachRun(extension, record, {
        policy: { noProgressTimeoutMs: context.agentToolInspectTimeoutMs, maxWindowMs: 0 },
        silenceReason: "not-tailable",
        releaseTimeoutMs: context.agentToolInspectTimeoutMs,
      });
      break;
    case "live":
      if (noProgressMs === 0) {
        // "Collect only a child that has already finished." A child with no record of an unacknowledged start
        // runs nothing (and the registry drops the input it kept), so it is not said to be running.
        final = await extension.finalize(
          runId,
          interruptedOutcome("no-progress", { ms: 0 }, classification.inspection !== null),
        );
      } else {
        final = await reattachRun(extension, record, {
          policy: { noProgressTimeoutMs: noProgressMs, maxWindowMs: context.agentToolReattachMaxWindowMs },
          silenceReason: "no-progress",
          releaseTimeoutMs: context.agentToolInspectTimeoutMs,
        });
      }
      break;
  }
  if (final === null) return { kind: "cleared", runId };
  const outcome: RecoveryRowOutcome =
    final.status === "interrupted"
      ? "interrupted"
      : classification.kind === "terminal" && isHardTerminalStatus(final.status)
        ? "finalized"
        : "reattached";
  const durationMs = clock.now() - startedAt;
  const report: RecoveryRowReport = {
    runId,
    agentType,
    outcome,
    status: final.status,
    durationMs,
    ...(outcome === "interrupted" && final.reason !== undefined ? { reason: final.reason } : {}),
    ...(outcome === "interrupted" && final.childStillRunning !== undefined
      ? { childStillRunning: final.childStillRunning }
      : {}),
  };
  emit(extension, recoveryEvent<RecoveryRowEvent>("agent_tool:recovery:row", report, clock.now()));
  return { kind: "recovered", report };
}

function detailsOf(reason: AgentToolInterruptedReason, context: RowContext): { ms?: number } {
  if (reason === "inspect-timeout") return { ms: context.agentToolInspectTimeoutMs };
  if (reason === "recovery-deadline") return { ms: context.agentToolRecoveryDeadlineMs };
  return {};
}

function emit(extension: Extension, event: RecoveryEvent): void {
  extension.emit(event);
}
