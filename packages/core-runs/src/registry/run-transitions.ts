import type { RunStatus } from "../protocol/index.js";
import type { ConcurrencySlots } from "./concurrency-slots.js";
import type { AgentToolRunOutcome, RunFinishedListener } from "./registry-options.js";
import type { RegistryRuntime } from "./registry-runtime.js";
import { FINISH_ATTENTION } from "./run-attention.js";
import { terminalFrame } from "./run-frames.js";
import {
  decideTerminal,
  type FollowedPosition,
  finishHookSettledPatch,
  isFinishHookPending,
  startAcknowledgedPatch,
  type TerminalRunRecord,
} from "./run-machine.js";
import { applyRunPatch, type RunRecord, toRunInfo } from "./run-record.js";
import { toLifecycleResult } from "./run-result.js";

/** How many times a terminal write is tried when the row's revision keeps moving under it. */
const MAX_TERMINAL_WRITES = 3;

/**
 * The registry's writer of terminal transitions: applies the machine's `decideTerminal` to the store (conditional on
 * the row's revision), then announces the transition — the lifecycle frame, `agent_tool:run:finish`, the finish
 * listeners of extension packages, and `onAgentToolFinish` through its ledger (called, then recorded, so a crash in
 * between delivers it again at start-up).
 */
export class RunTransitions {
  readonly #runtime: RegistryRuntime;
  readonly #slots: ConcurrencySlots;
  readonly #listeners = new Set<RunFinishedListener>();

  constructor(runtime: RegistryRuntime, slots: ConcurrencySlots) {
    this.#runtime = runtime;
    this.#slots = slots;
  }

  /** Listen to every terminal transition; returns the function that stops listening. */
  onRunFinished(listener: RunFinishedListener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /**
   * Record `outcome` for a run. A hard-terminal row is returned unchanged; a second soft outcome is written quietly;
   * `null` for an unknown (or cleared) run.
   */
  async finalize(runId: string, outcome: AgentToolRunOutcome, followed?: FollowedPosition): Promise<RunRecord | null> {
    const { store, clock, hooks } = this.#runtime;
    for (let attempt = 0; attempt < MAX_TERMINAL_WRITES; attempt += 1) {
      const stored = await store.getRun(runId);
      if (!stored) return null;
      const now = clock.now();
      // A start acknowledgement not written yet rides on this write: the row as if it were written first.
      const acknowledgement = followed?.startAcknowledged;
      const acknowledged =
        acknowledgement !== undefined && !stored.startAcknowledged && stored.revision === acknowledgement.revision
          ? startAcknowledgedPatch(stored, now)
          : undefined;
      const current = acknowledged ? applyRunPatch(stored, acknowledged) : stored;
      const decision = decideTerminal(current, outcome, {
        now,
        hasFinishHook: hooks.onAgentToolFinish !== undefined,
        followed,
      });
      if (decision.kind === "keep") return stored;
      // The owners with work left on the finished row say so with it (start-up lists those rows, not every one).
      const attention = this.#runtime.attention.ofTerminal(applyRunPatch(current, decision.patch));
      const patch = { ...acknowledged, ...decision.patch, attention };
      const updated = await store.updateRun(runId, patch, { expectedRevision: stored.revision });
      if (!updated) continue;
      if (decision.kind === "quiet") return updated;
      this.#slots.release(runId);
      await this.announce(updated as TerminalRunRecord, decision.previousStatus);
      return updated;
    }
    return store.getRun(runId);
  }

  /** Tell clients, observers, listeners and the finish hook that `record` reached its terminal revision. */
  async announce(record: TerminalRunRecord, previousStatus: RunStatus): Promise<void> {
    const runtime = this.#runtime;
    const frame = terminalFrame(record);
    if (frame) runtime.send(frame);
    this.#emitFinish(record, previousStatus);
    for (const listener of [...this.#listeners]) {
      await runtime.callHook("onRunFinished", record, () => listener(record, previousStatus));
    }
    // The caller awaiting the run resolves from the written row; the hook runs beside it (the ledger keeps it at
    // least once across a crash), so a slow or hanging hook never blocks the run's result.
    if (runtime.hooks.onAgentToolFinish) runtime.background(this.#notifyFinish(record));
  }

  /**
   * A live run that is being cleared ends here (`aborted`) for hooks and observers; clients forget it through the
   * `cleared` frame instead of a terminal one, and nothing is written (its row is about to be deleted).
   */
  announceCleared(record: RunRecord): void {
    const cleared = { ...record, status: "aborted", error: "The run was cleared" } as TerminalRunRecord;
    const { endCause: _cause, ...withoutCause } = cleared;
    this.#emitFinish(withoutCause as TerminalRunRecord, record.status);
    this.#runtime.background(this.#callFinishHook(cleared));
  }

  /**
   * Fire `onAgentToolFinish` for terminal rows whose ledger says it was not. Reads the rows with attention only (a
   * pending ledger marks its row); a row marked without a pending ledger is cleared. Returns how many were delivered.
   */
  async deliverPendingFinishHooks(): Promise<number> {
    const runtime = this.#runtime;
    let delivered = 0;
    for (const record of await runtime.store.listRuns({ attention: true })) {
      if (runtime.hooks.onAgentToolFinish && isFinishHookPending(record)) {
        await this.#notifyFinish(record);
        delivered += 1;
      } else if (record.attention?.[FINISH_ATTENTION]) {
        await runtime.store.updateRun(record.runId, { attention: { [FINISH_ATTENTION]: undefined } }).catch(() => null);
      }
    }
    return delivered;
  }

  /** The ledger: call the hook, then record the revision it was called for. */
  async #notifyFinish(record: TerminalRunRecord): Promise<void> {
    await this.#callFinishHook(record);
    try {
      await this.#runtime.store.updateRun(record.runId, {
        ...finishHookSettledPatch(record),
        attention: { [FINISH_ATTENTION]: undefined },
      });
    } catch {
      // Left pending: `deliverPendingFinishHooks` calls it again at the next start-up (at least once).
    }
  }

  async #callFinishHook(record: TerminalRunRecord): Promise<void> {
    const { hooks, callHook } = this.#runtime;
    const hook = hooks.onAgentToolFinish;
    if (!hook) return;
    await callHook("onAgentToolFinish", record, () => hook(toRunInfo(record), toLifecycleResult(record)));
  }

  #emitFinish(record: TerminalRunRecord, previousStatus: RunStatus): void {
    const now = this.#runtime.clock.now();
    this.#runtime.emit({
      type: "agent_tool:run:finish",
      runId: record.runId,
      agentType: record.agentType,
      status: record.status,
      previousStatus,
      durationMs: Math.max(0, (record.completedAt ?? now) - record.startedAt),
      at: now,
      ...(record.reason !== undefined ? { reason: record.reason } : {}),
      ...(record.endCause !== undefined ? { cause: record.endCause } : {}),
      ...(record.usage !== undefined ? { usage: record.usage } : {}),
    });
  }
}
