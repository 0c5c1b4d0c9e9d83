import type { RunEvent } from "../events/run-events.js";
import type { Clock } from "../ports/clock.js";
import type { RunStoreFilter } from "../ports/run-store.js";
import type { AgentToolLogEntry, AgentToolRunInspection } from "../protocol/index.js";
import type { AgentToolChildReference } from "./agent-type.js";
import type {
  AgentToolRunOutcome,
  RunAgentToolOptions,
  RunFinishedListener,
  StartAgentToolRunResult,
} from "./registry-options.js";
import type { ActivityListener, StopDecision } from "./run-driver.js";
import type { RunRecord } from "./run-record.js";

export type { ActivityListener, StopDecision } from "./run-driver.js";

/** Where an extension keeps its own fields on run rows, and how it reads them back. */
export type RegistryExtensionOptions<TState> = {
  /** The extension's key in `RunRecord.meta` (its package name, e.g. `"detached"`). */
  key: string;
  /** The stored value, checked: `null` when absent or not of this extension's shape (not its row). */
  read: (value: unknown) => TState | null;
  /**
   * Whether a finished row of this extension's needs nothing more from it (its delivery done, say). Given, the
   * registry keeps the row's `attention` under this extension's key in step with it (on every `updateState` and
   * terminal write), so that `listRuns({ attention: true })` finds the rows it still has work on after a restart,
   * without reading every retained run. Not given: the extension lists rows itself.
   */
  settled?: (state: TState, record: RunRecord) => boolean;
};

/** An extension's follow of one run. */
export type RunFollow = {
  /** The run's row when following ends: its terminal, or what a stop recorded (`null`: unknown or cleared). */
  readonly done: Promise<RunRecord | null>;
  /**
   * Stop following. Tailing stops at once (nothing the child does next is recorded); then `decide` gives the outcome
   * to record instead of the child's — a value, or a function that may first try to cancel the child. Every caller
   * waiting for the run gets that outcome. A follow that already ended resolves its row unchanged.
   */
  stop(decide: StopDecision): Promise<RunRecord | null>;
};

/**
 * Decides a cancel for rows an extension owns: resolve `true`/`false` (cancelled or not), or return `null` to leave
 * the row to the registry's own cancel.
 */
export type CancelHandler = (record: RunRecord, reason: string) => Promise<boolean> | null;

/**
 * The one seam through which extension packages (`@agent-tools/detached`, `@agent-tools/recovery`, a host's own)
 * work with a registry's runs. The registry stays the only writer of its rows' lifecycle: an extension reads runs,
 * keeps its own state under its `meta` key (compare-and-set on the row's revision), admits runs, follows and stops
 * them, records outcomes through the status machine, reaches children to inspect or cancel them, and hears of
 * terminal transitions and cancels.
 */
export interface RegistryExtension<TState> {
  readonly key: string;
  /** The registry's clock. */
  readonly clock: Clock;
  getRun(runId: string): Promise<RunRecord | null>;
  listRuns(filter?: RunStoreFilter): Promise<RunRecord[]>;
  /** The parent's copy of a run's log. */
  readLog(runId: string, options?: { afterSequence?: number; limit?: number }): Promise<AgentToolLogEntry[]>;
  /**
   * Compact the parent's copy of a finished (`completed`, `error`, `aborted`) run's log to its final message,
   * milestones and sequences (`compactRunLog`): replay then brings every client to the same run as before. Resolves
   * `false` for an unknown, live, `interrupted` or empty run.
   */
  compactLog(runId: string): Promise<boolean>;
  /** This extension's state on a row, or `null` when the row is not its own. */
  stateOf(record: RunRecord): TState | null;
  /**
   * Read-modify-write of this extension's state, applied only if the row's revision did not move (retried a few
   * times when a transition lands in between). `change` returns the new state, or `null` for no change. `current` (a
   * row just read) saves the first read. Resolves the row and state after the change, or `null` when the row is gone,
   * is not this extension's, or kept changing.
   */
  updateState(
    runId: string,
    change: (state: TState, record: RunRecord) => TState | null,
    current?: RunRecord,
  ): Promise<{ record: RunRecord; state: TState } | null>;
  /**
   * Make the row's attention under this extension's key say what `settled` says now (one write when it does not):
   * for a row found with attention that needs nothing any more.
   */
  refreshAttention(record: RunRecord): Promise<void>;
  /** Admit a dispatch (the registry's idempotency, limits and cap), storing `state` under this extension's key. */
  admit(
    child: AgentToolChildReference,
    options: Omit<RunAgentToolOptions, "signal" | "onFrame"> & { detached?: boolean; state?: TState },
  ): Promise<StartAgentToolRunResult>;
  /** Follow a run to its end (re-attaching to its child, or starting it if it never acknowledged `start`). */
  follow(runId: string, options?: { onActivity?: ActivityListener }): RunFollow;
  /** Record an outcome for a run through the status machine (frames, hooks and ledger as for any transition). */
  finalize(runId: string, outcome: AgentToolRunOutcome): Promise<RunRecord | null>;
  /** The child's inspection of the run (`null`: no record yet). Rejects when the child cannot be reached. */
  inspectChild(run: Pick<RunRecord, "agentType" | "runId">): Promise<AgentToolRunInspection | null>;
  /** Ask the child to cancel the run; resolves whether the request reached it. Records nothing. */
  cancelChild(run: Pick<RunRecord, "agentType" | "runId">, reason: string): Promise<boolean>;
  /** The registry's own cancel of a live run (ignoring cancel handlers). False for unknown or finished runs. */
  cancelRun(runId: string, reason: string): Promise<boolean>;
  /** Take over `cancelAgentTool` for the rows `handler` claims; returns the function that removes it. */
  handleCancel(handler: CancelHandler): () => void;
  /** Hear of every terminal transition (after the row is written and its frame sent). */
  onRunFinished(listener: RunFinishedListener): () => void;
  /** Emit an observability event through the registry's sink. */
  emit(event: RunEvent): void;
}
