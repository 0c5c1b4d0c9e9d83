import type { UIMessageChunk } from "ai";
import type { AgentToolApproval } from "./approvals.js";
import type { AgentToolInterruptedReason, DispatchRejection } from "./failure.js";
import type { JsonValue } from "./json-value.js";
import type { HardTerminalRunStatus, RunStatus, TerminalRunStatus } from "./status.js";
import type { AgentToolTree } from "./tree.js";
import type { AgentToolBudgetExhaustion, AgentToolUsage } from "./usage.js";

/** Free metadata for clients (`agentTool`'s `displayName` becomes `name`), JSON. */
export type AgentToolDisplay = {
  name?: string;
  icon?: string;
  [key: string]: JsonValue | undefined;
};

/** The public face of a run in the parent's registry. Timestamps are the server's epoch milliseconds. */
export type AgentToolRunInfo = {
  runId: string;
  agentType: string;
  parentToolCallId?: string;
  displayOrder: number;
  inputPreview?: string;
  display?: AgentToolDisplay;
  status: RunStatus;
  revision: number;
  startedAt: number;
  completedAt?: number;
  progress?: AgentToolProgressSnapshot;
  /** Where the run sits in its tree of runs (its root, its ancestors, the budget it lives within). */
  tree?: AgentToolTree;
  /** What the run and everything below it spent, as it last reported. */
  usage?: AgentToolUsage;
};

/** What `onAgentToolFinish` (and a detached `onFinish`) receives: a terminal status and its details. */
export type AgentToolLifecycleResult = {
  status: TerminalRunStatus;
  summary?: string;
  output?: unknown;
  error?: string;
  reason?: AgentToolInterruptedReason;
  childStillRunning?: boolean;
};

/** The latest progress a child reported. `at` is the server's time. */
export type AgentToolProgressSnapshot = {
  fraction?: number;
  message?: string;
  phase?: string;
  milestone?: string;
  /** What the child reported with it, as JSON. */
  data?: JsonValue;
  at: number;
};

/** A durable milestone in a run's log. */
export type AgentToolMilestone = {
  sequence: number;
  name: string;
  message?: string;
  phase?: string;
  fraction?: number;
  /** What the child reported with it, as JSON. */
  data?: JsonValue;
  at: number;
};

/**
 * Why a run ended: `child` — the child's own result (also an `aborted` it reported after a cancel); the rest are
 * the parent's: the child could not be started, the run was refused by the concurrency cap, a cancel could not
 * reach the child, the caller aborted before the child started, or the parent gave up waiting (a budget, recovery,
 * a tail it could not follow: see `reason`).
 */
export type AgentToolEndCause =
  | "child"
  | "start-failed"
  | "max-concurrency"
  | "child-unreachable"
  | "cancelled-before-start"
  | "given-up";

/** What a detached dispatch returns at once. */
export type DetachedRunAgentToolResult = {
  runId: string;
  agentType: string;
  status: RunStatus;
  error?: string;
  /** Set when the dispatch was refused (`status: "error"`): the typed reason, so a dispatcher need not read `error`. */
  rejection?: DispatchRejection;
};

/** The statuses a child reports for its own run (a child never reports `interrupted`). */
export type ChildRunStatus = "running" | HardTerminalRunStatus;

/**
 * A child's snapshot of one run, as `inspectAgentToolRun` returns it.
 * `lastSequence` is the highest sequence in the run's durable log (0 when empty).
 */
export type AgentToolRunInspection = {
  runId: string;
  status: ChildRunStatus;
  summary?: string;
  output?: unknown;
  error?: string;
  progress?: AgentToolProgressSnapshot;
  milestones: AgentToolMilestone[];
  lastSequence: number;
  startedAt: number;
  completedAt?: number;
  /** What the run and everything below it spent. */
  usage?: AgentToolUsage;
  /** Set when the run was cut short because its budget ran out (it had its wrap-up step, or was refused one). */
  budgetExceeded?: AgentToolBudgetExhaustion;
  /** Approvals the run waits for, its own and its descendants' (it is `running`, paused or awaiting a tool). */
  awaitingApproval?: AgentToolApproval[];
};

/** One entry of a run's durable log: a `UIMessageChunk` with its sequence (1, 2, 3 …) and server time. */
export type AgentToolLogEntry = {
  sequence: number;
  body: UIMessageChunk;
  at: number;
};

/**
 * What a tail yields: durable log entries in sequence order, ephemeral progress (no sequence), and last the
 * run's terminal inspection. A tail that ends without `terminal` was cut off (transport, signal).
 *
 * Log entries travel in batches: one `entries` item holds one or more entries with consecutive sequences (a page
 * of the stored log, or one group commit of a live turn), so a transport and its reader pay per batch, not per
 * chunk. Progress items keep their place between batches.
 */
export type AgentToolTailItem =
  | { type: "entries"; entries: AgentToolLogEntry[] }
  | {
      type: "progress";
      body: UIMessageChunk;
      at: number;
      /**
       * Set on the snapshot a tail starts from (the run's latest progress, reported before the tail attached), so a
       * reader can tell it from news.
       */
      catchUp?: true;
    }
  | { type: "terminal"; inspection: AgentToolRunInspection };
