import type {
  AgentToolApproval,
  AgentToolBudgetExhaustion,
  AgentToolDisplay,
  AgentToolEndCause,
  AgentToolInterruptedReason,
  AgentToolMilestone,
  AgentToolProgressSnapshot,
  AgentToolRunInfo,
  AgentToolTraceContext,
  AgentToolTree,
  AgentToolUsage,
  RunStatus,
} from "../protocol/index.js";

/**
 * One stored run row. A parent's registry keeps one per dispatched run; a child keeps one per run it performs
 * (the child never uses `interrupted`). Every status change increments `revision`.
 */
export type RunRecord = {
  runId: string;
  agentType: string;
  status: RunStatus;
  revision: number;
  startedAt: number;
  updatedAt: number;
  completedAt?: number;
  parentToolCallId?: string;
  displayOrder: number;
  display?: AgentToolDisplay;
  inputPreview?: string;
  /** The full input: on a parent only until the child acknowledges `start`; on a child, always. */
  input?: unknown;
  /** Parent: the child acknowledged `start`. */
  startAcknowledged?: boolean;
  summary?: string;
  output?: unknown;
  error?: string;
  reason?: AgentToolInterruptedReason;
  /** Parent: why the run ended (the child's own result, or the parent's reason). */
  endCause?: AgentToolEndCause;
  childStillRunning?: boolean;
  /** Highest durable log sequence stored (child) or seen and recorded (parent). */
  lastSequence: number;
  progress?: AgentToolProgressSnapshot;
  /** Child: the run's milestones (also in its log), for inspection without reading the log. */
  milestones?: AgentToolMilestone[];
  /** Parent ledger: the revision whose terminal transition `onAgentToolFinish` has been called for. */
  finishNotifiedRevision?: number;
  /** True for runs dispatched with `detached`. */
  detached?: boolean;
  /** Child: how many times a cut-off turn was resumed. */
  recoveryAttempts?: number;
  /**
   * Where the run sits in its tree of runs (its root, its ancestors, the budget it lives within): set at dispatch on
   * the parent's row, and sent with `start` to the child, which keeps it on its own row.
   */
  tree?: AgentToolTree;
  /**
   * The W3C trace context the run's work continues (the span its child's spans nest under): set at dispatch on the
   * parent's row (the registry's `traceContext`), sent with `start` to the child, which keeps it on its own row and
   * gives it to the turn (`context.trace`). A re-attach after a restart reads it from the row: the trace goes on.
   */
  trace?: AgentToolTraceContext;
  /**
   * What happens to the run when the run (or turn) that dispatched it is cancelled: `"cancel"` (every awaited run,
   * and a detached run dispatched with it) or `"keep"` (a detached run's default: it outlives what dispatched it).
   */
  onParentCancel?: "cancel" | "keep";
  /** What the run and everything below it spent (the child's own figure; the parent's as last reported). */
  usage?: AgentToolUsage;
  /** Child: the run was cut short by its budget (it had its wrap-up step). */
  budgetExceeded?: AgentToolBudgetExhaustion;
  /** Child: the run is paused, waiting for these approvals (its turn ended on tool calls that need one). */
  awaitingApproval?: AgentToolApproval[];
  /** Extension packages' own fields, each under its package name. Must be JSON-serializable. */
  meta?: Record<string, unknown>;
  /**
   * Who still has work on this finished row, by owner: `finish` (the registry's `onAgentToolFinish` ledger) or an
   * extension's key (a detached run's delivery). A start-up lists the live rows and the rows with attention, never
   * every retained one (`listRuns({ attention: true })`); each owner sets and clears its own key.
   */
  attention?: Record<string, true>;
};

/** A partial update of a row: a field set to `undefined` is removed (`meta` and `attention`: per key). */
export type RunRecordPatch = { [K in Exclude<keyof RunRecord, "attention">]?: RunRecord[K] | undefined } & {
  attention?: Record<string, true | undefined> | undefined;
};

/** Whether the row has attention (an owner has work left on it). */
export function hasAttention(record: Pick<RunRecord, "attention">): boolean {
  return record.attention !== undefined && Object.keys(record.attention).length > 0;
}

/**
 * `RunStore.updateRun`'s merge rule, shared by every store: the patch's fields replace the row's, a field set to
 * `undefined` is removed, `meta` and `attention` are merged per key (each owner has its key; a key set to `undefined`
 * is removed, and an `attention` left with no key is removed), and `runId` never changes. Pure: returns a new row.
 */
export function applyRunPatch(record: RunRecord, patch: RunRecordPatch): RunRecord {
  const next: Record<string, unknown> = { ...record };
  for (const [key, value] of Object.entries(patch)) {
    if (key === "runId") continue;
    if ((key === "meta" || key === "attention") && value !== undefined) {
      const merged: Record<string, unknown> = { ...(record[key] as Record<string, unknown> | undefined) };
      for (const [ownKey, ownValue] of Object.entries(value as Record<string, unknown>)) {
        if (ownValue === undefined) delete merged[ownKey];
        else merged[ownKey] = ownValue;
      }
      if (key === "attention" && Object.keys(merged).length === 0) delete next[key];
      else next[key] = merged;
    } else if (value === undefined) {
      delete next[key];
    } else {
      next[key] = value;
    }
  }
  return next as RunRecord;
}

/** The public view of a registry row. */
export function toRunInfo(record: RunRecord): AgentToolRunInfo {
  return {
    runId: record.runId,
    agentType: record.agentType,
    displayOrder: record.displayOrder,
    status: record.status,
    revision: record.revision,
    startedAt: record.startedAt,
    ...(record.parentToolCallId !== undefined ? { parentToolCallId: record.parentToolCallId } : {}),
    ...(record.inputPreview !== undefined ? { inputPreview: record.inputPreview } : {}),
    ...(record.display !== undefined ? { display: record.display } : {}),
    ...(record.completedAt !== undefined ? { completedAt: record.completedAt } : {}),
    ...(record.progress !== undefined ? { progress: record.progress } : {}),
    ...(record.tree !== undefined ? { tree: record.tree } : {}),
    ...(record.usage !== undefined ? { usage: record.usage } : {}),
  };
}
