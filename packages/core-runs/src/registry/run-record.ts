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
  // Built key by key into a new object (no spread, no `delete`, no entry arrays): the row keeps its fields' order
  // (the patched ones in place, the new ones after) and stays a fast object for the JSON and copies that follow.
  return patchKeys(
    record as Record<string, unknown>,
    patch as Record<string, unknown>,
    patchField,
    "runId",
  ) as RunRecord;
}

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * `base`'s own keys with `patch`'s applied, into a new object: a key `patch` has is given `apply(key, base value, patch
 * value)` (which sets nothing to remove it), in `base`'s order, then `patch`'s new keys in its order; `fixed` is never
 * patched.
 */
function patchKeys(
  base: Record<string, unknown> | undefined,
  patch: Record<string, unknown>,
  apply: (next: Record<string, unknown>, key: string, current: unknown, value: unknown) => void,
  fixed?: string,
): Record<string, unknown> {
  const next: Record<string, unknown> = {};
  if (base !== undefined) {
    for (const key in base) {
      if (!hasOwn.call(base, key)) continue;
      if (key === fixed || !hasOwn.call(patch, key)) define(next, key, base[key]);
      else apply(next, key, base[key], patch[key]);
    }
  }
  for (const key in patch) {
    if (hasOwn.call(patch, key) && key !== fixed && (base === undefined || !hasOwn.call(base, key))) {
      apply(next, key, undefined, patch[key]);
    }
  }
  return next;
}

/** A row's field: `undefined` removes it; `meta` and `attention` merge per key (an `attention` left empty is removed). */
function patchField(next: Record<string, unknown>, key: string, current: unknown, value: unknown): void {
  if (value === undefined) return;
  if (key !== "meta" && key !== "attention") {
    define(next, key, value);
    return;
  }
  const merged = patchKeys(current as Record<string, unknown> | undefined, value as Record<string, unknown>, ownKey);
  if (key === "attention" && isEmpty(merged)) return;
  define(next, key, merged);
}

/** One owner's key of `meta` or `attention`: `undefined` removes it. */
function ownKey(next: Record<string, unknown>, key: string, _current: unknown, value: unknown): void {
  if (value !== undefined) define(next, key, value);
}

/** Set an own property (a key such as "__proto__", which JSON can hold, stays an ordinary key). */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

function isEmpty(value: Record<string, unknown>): boolean {
  for (const key in value) if (hasOwn.call(value, key)) return false;
  return true;
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
