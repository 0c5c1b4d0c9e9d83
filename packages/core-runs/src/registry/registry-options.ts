// The registry's public option, result and hook types (the class is in run-registry.ts).

import type { DispatchRejection } from "../events/run-events.js";
import type { ChildTransport } from "../ports/child-transport.js";
import type { Clock } from "../ports/clock.js";
import type { RunEventSink } from "../ports/run-event-sink.js";
import type { RunPosition, RunStore } from "../ports/run-store.js";
import type {
  AgentToolApproval,
  AgentToolBudget,
  AgentToolCursors,
  AgentToolDisplay,
  AgentToolEndCause,
  AgentToolEventFrame,
  AgentToolLifecycleResult,
  AgentToolPosition,
  AgentToolProgressSnapshot,
  AgentToolResult,
  AgentToolRunInfo,
  AgentToolTraceContext,
  AgentToolTree,
  AgentToolUsage,
  RunStatus,
  TerminalRunStatus,
} from "../protocol/index.js";
import type { RunRecord } from "./run-record.js";
import type { TailRetryPolicy } from "./tail-retry-policy.js";

/** Overridable parent hooks. Each is isolated: a throwing (or rejecting) hook never stops a run or the others. */
export type AgentToolHooks = {
  /** Once per run, when it is dispatched. */
  onAgentToolStart?(run: AgentToolRunInfo): void | Promise<void>;
  /** Exactly once per terminal transition (a repair from `interrupted` is a new transition). */
  onAgentToolFinish?(run: AgentToolRunInfo, result: AgentToolLifecycleResult): void | Promise<void>;
  /** Best effort, live only: ephemeral progress and milestones (`snapshot.milestone` set). */
  onProgress?(run: AgentToolRunInfo, snapshot: AgentToolProgressSnapshot): void | Promise<void>;
  /** Live only: a run reported what it and its subtree spent so far (`usage`, the latest total). */
  onUsage?(run: AgentToolRunInfo, usage: AgentToolUsage): void | Promise<void>;
  /**
   * Live only: a tool call that needs approval, in the run or below it (`approval.path` names who asks), was asked
   * or answered. A run that dispatches runs itself re-publishes them in its own log, one level deeper.
   */
  onApproval?(run: AgentToolRunInfo, approval: AgentToolApproval): void | Promise<void>;
};

export type AgentToolRegistryOptions = {
  /** The parent's durable storage. */
  store: RunStore;
  /** How this parent reaches its children. */
  transport: ChildTransport;
  clock?: Clock;
  /** Observability events (default: the process-wide hub). */
  sink?: RunEventSink;
  hooks?: AgentToolHooks;
  /** Send a frame to every connected client of the parent. */
  broadcast?: (frame: AgentToolEventFrame) => void;
  /** Runs in `starting`/`running` at once; what happens to more is `overCap`. Default: unlimited. */
  maxConcurrentAgentTools?: number;
  /**
   * A dispatch over `maxConcurrentAgentTools`:
   * - `"record"` (default, SPEC §3): the run is recorded as `error` ("maxConcurrentAgentTools (N) exceeded"), sent
   *   to clients and replayed like any finished run, and its hooks fire. Its runId is spent: a re-dispatch returns
   *   that `error`. Right for model tool calls, whose timeline should show the refused call.
   * - `"refuse"`: refused like oversized input: no row, no frame, no hooks, and the runId stays free, so a
   *   dispatcher can retry it later. Right for code that dispatches many (background) runs and retries.
   *
   * Either way the result carries `rejection: "max-concurrency"`.
   */
  overCap?: "record" | "refuse";
  /** Inputs larger than this (as UTF-8 JSON) are refused before any run exists. Default 1 MiB. */
  maxAgentToolInputBytes?: number;
  /** Default: `crypto.randomUUID()`. */
  generateRunId?: () => string;
  /** Keep the host alive for background work (a Durable Object's `ctx.waitUntil`). */
  waitUntil?: (promise: Promise<unknown>) => void;
  /**
   * How long to keep following a child whose tail ends before its terminal (see `TailRetryPolicy`). Default: pauses
   * from 250 ms doubling to 10 s, for at most 60 s without a sign of life; then `interrupted` / `not-tailable`.
   */
  tailRetry?: Partial<TailRetryPolicy>;
  /**
   * How often, at most, the parent persists its position in a run it follows (its copy of the log, the last
   * sequence, the latest progress), so that a restart re-attaches from there. Default 500 ms.
   */
  followWriteIntervalMs?: number;
  /**
   * Where this registry's dispatches come from in their tree of runs, asked at each dispatch: a child's registry
   * answers with the run whose turn is dispatching (its path and what is left of its budget), a parent's with its
   * chat turn. `null` (or no option): each run dispatched is the top of a tree of its own.
   */
  position?: () => AgentToolPosition | null;
  /**
   * Told of each new run the moment it is admitted, before any other dispatch is decided: a dispatcher counts it
   * against its budget here (`RunBudget.recordDispatch`), so runs dispatched at once never all take the last one.
   * Must not throw.
   */
  onDispatch?: (run: AgentToolRunInfo) => void;
  /**
   * The W3C trace context a new run's work continues, asked once when the run is created and kept on its row (sent to
   * the child with `start`, read again on a re-attach after a restart). E.g. `@agent-tools/observability`'s exporter's
   * `traceContext`, which opens the run's spans and answers with the span its child nests under. Default: none.
   */
  traceContext?: (run: AgentToolTraceRequest) => AgentToolTraceContext | null | undefined;
};

/** What `traceContext` is asked about: the run being created, and the trace of what dispatches it, when known. */
export type AgentToolTraceRequest = {
  runId: string;
  agentType: string;
  parentToolCallId?: string;
  detached: boolean;
  tree: AgentToolTree;
  /**
   * The trace context of the run that dispatches this one (a child's own registry: the run whose turn dispatches;
   * the host fills it in), `null` when none is known: the current OpenTelemetry context is then the one to continue.
   */
  dispatcher: AgentToolTraceContext | null;
};

export type RunAgentToolOptions<TInput = unknown> = {
  input: TInput;
  /** Default: a random id. The same runId never starts a second child turn. */
  runId?: string;
  /** The parent tool call that started the run (set by `agentTool`). */
  parentToolCallId?: string;
  /** Order among sibling runs of one tool call. Default 0. */
  displayOrder?: number;
  /** Aborting cancels the child: the run ends `aborted`. */
  signal?: AbortSignal;
  /** Limits for this run and its subtree: narrowed by what the dispatcher's own budget allows, never widened. */
  budget?: AgentToolBudget;
  /** The run's place in its tree, given outright (default: from the registry's `position`). */
  tree?: AgentToolTree;
  /**
   * When the run or turn that dispatched this run is cancelled: `"cancel"` it too (always, for an awaited run) or
   * `"keep"` it running (what `@agent-tools/detached` passes for a detached run, unless told otherwise).
   */
  onParentCancel?: "cancel" | "keep";
  /** What clients see of the input. Default: the input cut to 500 characters. */
  inputPreview?: string;
  display?: AgentToolDisplay;
  /**
   * Also hand this run's frames to the caller, as its clients get them, until the call returns: first what the
   * parent already holds of a run that existed before the call (`replay: true`), then every frame as it is sent.
   * A frame may come twice (a replayed one and its live twin): keep chunks by `sequence`, lifecycle by `revision`.
   * A throwing listener is ignored. `agentTool`'s `preliminaryResults` is built on it.
   */
  onFrame?: (frame: AgentToolEventFrame) => void;
};

export type ClearAgentToolRunsOptions = {
  status?: readonly RunStatus[];
  /** Epoch ms: runs that finished (or, if live, started) before this. */
  olderThan?: number;
};

export type ReplayOptions = {
  /** What the client already holds; `null`/absent → full replay. */
  cursors?: AgentToolCursors | null;
  /**
   * Paged replay (SPEC §6): newest first, the page of `limit` runs before `before`; or, without `before`, every run from
   * the oldest one `cursors` name on (the newest `limit` when they name none) and every live run. Absent: every
   * retained run. With `before` and `maxBytes`, the page ends before the run whose frames would take it past that many
   * bytes (UTF-8 JSON, as sent), unless it is its first run: what one request for older runs costs is bounded.
   */
  page?: { limit: number; before?: RunPosition; maxBytes?: number };
};

/** The outcome of admitting a dispatch: the run's row, and whether this call created it. */
export type StartAgentToolRunResult =
  | { ok: true; record: RunRecord; created: boolean; rejection?: DispatchRejection }
  | { ok: false; failure: AgentToolResult & { ok: false }; rejection: DispatchRejection };

/** Default `maxAgentToolInputBytes`: 1 MiB. */
export const DEFAULT_MAX_AGENT_TOOL_INPUT_BYTES = 1024 * 1024;

/** A terminal outcome to record for a run (used by recovery and budgets to give up on a child). */
export type AgentToolRunOutcome = {
  status: TerminalRunStatus;
  summary?: string;
  output?: unknown;
  error?: string;
  reason?: RunRecord["reason"];
  childStillRunning?: boolean;
  progress?: AgentToolProgressSnapshot;
  /** Why the run ends here. Default `given-up`: an outcome recorded instead of the child's result. */
  cause?: AgentToolEndCause;
  /** What the run and its subtree spent (the child's final figure). */
  usage?: AgentToolUsage;
};

/** Told of every terminal transition of a run, after its row is written and its frame sent. */
export type RunFinishedListener = (
  record: RunRecord & { status: TerminalRunStatus },
  previousStatus: RunStatus,
) => void | Promise<void>;
