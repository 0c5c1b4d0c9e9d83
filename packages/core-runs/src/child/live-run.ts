import type { UIMessageChunk } from "ai";
import { RunBudget } from "../budget/run-budget.js";
import { LiveRunLog } from "../log/live-run-log.js";
import type { Clock } from "../ports/clock.js";
import type { RunStore } from "../ports/run-store.js";
import {
  type AgentToolApproval,
  type AgentToolMilestone,
  type AgentToolProgressSnapshot,
  type AgentToolUsage,
  definedProps,
  mergeApproval,
  nextProgressSnapshot,
  readApprovalChunk,
  usageChunk,
} from "../protocol/index.js";
import type { RunRecord } from "../registry/run-record.js";
import type { AgentToolChildDefinition } from "./child-definition.js";

/** What a live run starts from: where its log ends, its milestones, usage and approvals as its log holds them. */
export type LiveRunStart = {
  lastSequence: number;
  milestones: AgentToolMilestone[];
  usage?: AgentToolUsage;
  approvals?: Iterable<AgentToolApproval>;
};

/**
 * A run whose turn is executing (or paused, waiting for approvals) in this runner: its log, budget, progress,
 * milestones and the approvals its log holds.
 */
export class LiveRun {
  readonly runId: string;
  /** Aborted by a cancel; a turn going on after an approval gets a new one. */
  controller = new AbortController();
  readonly log: LiveRunLog;
  /** What the run and its subtree spend, within the budget its tree gives it. */
  readonly budget: RunBudget;
  /** The latest progress snapshot (also persisted on the row). */
  progress: AgentToolProgressSnapshot | undefined;
  readonly milestones: AgentToolMilestone[];
  /** Settles when the turn has ended (or paused) and what it owes is recorded. */
  done: Promise<void> = Promise.resolve();
  /** Set by a cancel: settles once what the run dispatched itself has ended (its end is recorded after that). */
  descendantsEnded?: Promise<void>;
  /** Set while the run is paused: its turn waits for these approvals (its own). */
  paused?: { approvals: AgentToolApproval[] } | undefined;
  /**
   * Set when the run was started by `startTail` and its tail is not listening yet: someone waits for its stream, so
   * its turn lets the host's event loop turn (as it does while a tail listens).
   */
  isTailExpected = false;
  /** Every approval the run's log holds (its own and re-published ones), by the protocol's rule. */
  readonly approvals = new Map<string, AgentToolApproval>();
  readonly #clock: Clock;
  readonly #store: RunStore;

  /** True while someone waits for the run's stream: a tail listens, or the one `startTail` opens is on its way. */
  get isWaitedFor(): boolean {
    return this.isTailExpected || this.log.isFollowed;
  }

  constructor(options: {
    record: RunRecord;
    start: LiveRunStart;
    store: RunStore;
    clock: Clock;
    definition: AgentToolChildDefinition;
  }) {
    const { record, start, store, clock, definition } = options;
    this.runId = record.runId;
    this.#clock = clock;
    this.#store = store;
    this.progress = record.progress;
    this.milestones = start.milestones;
    for (const approval of start.approvals ?? []) this.#know(approval);
    this.log = new LiveRunLog({
      store,
      clock,
      runId: record.runId,
      lastSequence: start.lastSequence,
      onStoreError: () => this.controller.abort("store failed"),
    });
    this.budget = new RunBudget({
      budget: record.tree?.budget,
      clock,
      ...(start.usage !== undefined ? { initial: start.usage } : {}),
      // The subtree's total goes into the run's log at each change: its parent (and every client) reads it there.
      onChange: (total) => void this.append(usageChunk(total, this.budget.own())),
      onExhausted: (reason) => {
        try {
          definition.onBudgetExhausted?.(record.runId, reason);
        } catch {
          // a definition's hook never breaks the run
        }
      },
    });
  }

  /** Append durable chunks to the run's log, together (in one write), with the next sequences; returns the last. */
  appendAll(bodies: readonly UIMessageChunk[]): number {
    const entries = this.log.appendAll(bodies);
    for (const { body } of entries) {
      const approval = readApprovalChunk(body);
      if (approval) this.#know(approval);
    }
    return entries.at(-1)?.sequence ?? this.log.lastSequence;
  }

  /** Append one durable chunk to the run's log with the next sequence (a milestone listed too); returns it. */
  append(body: UIMessageChunk, milestone?: Omit<AgentToolMilestone, "sequence" | "at">): number {
    const entry = this.log.append(body);
    const approval = readApprovalChunk(body);
    if (approval) this.#know(approval);
    if (milestone) {
      this.milestones.push({ ...milestone, sequence: entry.sequence, at: entry.at });
      // A milestone moves the latest snapshot on, keeping what it does not bring itself (the rule clients apply).
      const { name, ...fields } = milestone;
      const report: AgentToolProgressSnapshot = { ...definedProps(fields), milestone: name, at: entry.at };
      const next = nextProgressSnapshot(this.progress, report, "milestone");
      if (next) this.recordProgress(next);
    }
    return entry.sequence;
  }

  /**
   * Publish an approval's state in the run's log — idempotently: a state the log holds already (by `approvalId`,
   * under the protocol's rule) is not written again. Returns whether it was written.
   */
  publishApproval(chunk: UIMessageChunk): boolean {
    const approval = readApprovalChunk(chunk);
    if (!approval) return false;
    const known = this.approvals.get(approval.approvalId);
    const merged = mergeApproval(known, approval);
    if (known !== undefined && (merged === known || merged.status === known.status)) return false;
    this.append(chunk);
    return true;
  }

  /** Send an ephemeral chunk to live tails (keeping `snapshot` as the run's latest progress). */
  publishEphemeral(body: UIMessageChunk, snapshot?: AgentToolProgressSnapshot): void {
    if (snapshot) this.recordProgress(snapshot);
    this.log.publish({ type: "progress", body, at: this.#clock.now() });
  }

  /**
   * A run resumed after a restart: what the runs it dispatched before spent is read back from their rows
   * (`definition.dispatchedUsage`) into its budget. Resolves once done (never rejects).
   */
  restoreDispatchedUsage(definition: AgentToolChildDefinition): Promise<void> {
    const read = definition.dispatchedUsage;
    if (!read) return Promise.resolve();
    return Promise.resolve()
      .then(() => read.call(definition, this.runId))
      .then(({ children, dispatched }) => this.budget.restore(children, dispatched))
      .catch(() => undefined);
  }

  recordProgress(snapshot: AgentToolProgressSnapshot): void {
    this.progress = snapshot;
    void this.#store.updateRun(this.runId, { progress: snapshot }).catch(() => undefined);
  }

  /** The approvals still pending among those the run's log holds (its own and its descendants'). */
  pendingApprovals(): AgentToolApproval[] {
    return [...this.approvals.values()].filter((approval) => approval.status === "pending");
  }

  #know(approval: AgentToolApproval): void {
    this.approvals.set(approval.approvalId, mergeApproval(this.approvals.get(approval.approvalId), approval));
  }
}
